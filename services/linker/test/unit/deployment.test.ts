import { describe, expect, it } from 'vitest';
import { reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Issue 20 item 2: deployment configuration as one model. What a Kubernetes manifest or a compose project
 * gives each service it runs (env, ConfigMaps and Secrets by reference or whole, `env_file`, `.env`
 * substitution, override files) feeds the same configuration lookups the code's evaluators use.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const deployment = (name: string, container: string[]): string[] => [
  'apiVersion: apps/v1',
  'kind: Deployment',
  'metadata:',
  `  name: ${name}`,
  'spec:',
  '  template:',
  '    metadata:',
  '      labels:',
  `        app: ${name}`,
  '    spec:',
  '      containers:',
  `        - name: ${name}`,
  `          image: registry.example.com/bank/${name}:1.0`,
  ...container.map((l) => `          ${l}`),
  '---',
  'apiVersion: v1',
  'kind: Service',
  'metadata:',
  `  name: ${name}`,
  'spec:',
  '  selector:',
  `    app: ${name}`,
];

const ledger = {
  'ledger/app.py': lines(
    'from flask import Flask',
    'app = Flask(__name__)',
    '',
    "@app.route('/transactions', methods=['POST'])",
    'def add():',
    "    return ''",
    '',
    "@app.route('/balances/<account>', methods=['GET'])",
    'def balance(account):',
    "    return ''",
  ),
};

describe('Kubernetes: ConfigMaps and Secrets referenced by workloads', () => {
  it('envFrom configMapRef (with a prefix), valueFrom configMapKeyRef and secretKeyRef; env wins over envFrom; a Flask app.config dict filled in another function', async () => {
    const r = await reportOf({
      deploy: {
        'manifests/config.yaml': lines(
          'apiVersion: v1',
          'kind: ConfigMap',
          'metadata:',
          '  name: service-api-config',
          'data:',
          '  TRANSACTIONS_API_ADDR: "ledger:8080"',
          '  HISTORY_API_ADDR: "wrong-host:8080"',
          '---',
          'apiVersion: v1',
          'kind: ConfigMap',
          'metadata:',
          '  name: ledger-config',
          'data:',
          '  addr: "ledger:8080"',
          '---',
          'apiVersion: v1',
          'kind: Secret',
          'metadata:',
          '  name: ledger-secret',
          'stringData:',
          '  url: "http://admin:s3cret@ledger:8080/balances"',
          '  password: "s3cret"',
        ),
        'manifests/frontend.yaml': lines(
          ...deployment('frontend', [
            'env:',
            '  - name: HISTORY_API_ADDR',
            '    value: ledger:8080',
            '  - name: BALANCES_URL',
            '    valueFrom:',
            '      secretKeyRef:',
            '        name: ledger-secret',
            '        key: url',
            '  - name: LEDGER_ADDR',
            '    valueFrom:',
            '      configMapKeyRef:',
            '        name: ledger-config',
            '        key: addr',
            '  - name: DB_PASSWORD',
            '    valueFrom:',
            '      secretKeyRef:',
            '        name: ledger-secret',
            '        key: password',
            'envFrom:',
            '  - configMapRef:',
            '      name: service-api-config',
            '  - configMapRef:',
            '      name: ledger-config',
            '    prefix: LEDGER_',
          ]),
        ),
        'manifests/ledger.yaml': lines(...deployment('ledger', [])),
      },
      ledger,
      frontend: {
        'frontend.py': lines(
          'import os',
          'import requests',
          'from flask import Flask',
          '',
          'def create_app():',
          '    app = Flask(__name__)',
          '',
          "    @app.route('/pay', methods=['POST'])",
          '    def pay():',
          '        requests.get("http://" + os.environ["LEDGER_ADDR"] + "/balances/1")',
          '        return requests.post(url=app.config["TRANSACTIONS_URI"], json={})',
          '',
          "    @app.route('/history', methods=['GET'])",
          '    def history():',
          '        requests.post(f"http://{os.environ.get(\'HISTORY_API_ADDR\')}/transactions")',
          '        requests.post("http://" + os.environ["LEDGER_addr"] + "/transactions")',
          '        return requests.get(os.environ["BALANCES_URL"] + "/42")',
          '',
          '    app.config["TRANSACTIONS_URI"] = "http://{}/transactions".format(os.environ.get("TRANSACTIONS_API_ADDR"))',
          '    return app',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'frontend frontend.py:10 | GET ledger/balances/1 | ledger ledger/app.py:8 GET /balances/<account> (flask)',
      'frontend frontend.py:11 | POST ledger/transactions | ledger ledger/app.py:4 POST /transactions (flask)',
      'frontend frontend.py:15 | POST ledger/transactions | ledger ledger/app.py:4 POST /transactions (flask)',
      'frontend frontend.py:16 | POST ledger/transactions | ledger ledger/app.py:4 POST /transactions (flask)',
      'frontend frontend.py:17 | GET ledger/balances/42 | ledger ledger/app.py:8 GET /balances/<account> (flask)',
    ]);
    // The Secret's password is neither stored nor shown; its address is, without the credentials.
    expect(JSON.stringify(r)).not.toContain('s3cret');
    expect(unresolved(r)).toEqual([]);
  });
});

describe('docker-compose: env_file, .env substitution and override files', () => {
  it('a service reads env_file entries; ${X} comes from the .env beside the compose file; compose.override.yml wins over the base and names the service by its base build', async () => {
    const r = await reportOf({
      deploy: {
        '.env': lines('LEDGER_HOST=ledger', 'LEDGER_PORT=8080'),
        'env/frontend.env': lines('HISTORY_URL=http://ledger:8080/transactions'),
        'docker-compose.yml': lines(
          'services:',
          '  web:',
          '    build: ../frontend',
          '    env_file:',
          '      - ./env/frontend.env',
          '    environment:',
          '      TRANSACTIONS_URL: http://${LEDGER_HOST}:${LEDGER_PORT:-80}/transactions',
          '      BALANCES_URL: http://old-ledger/balances',
          '  ledger:',
          '    build: ../ledger',
        ),
        'compose.override.yml': lines(
          'services:',
          '  web:',
          '    environment:',
          '      - BALANCES_URL=http://ledger:8080/balances',
        ),
      },
      ledger,
      frontend: {
        'web.js': lines(
          "const base = process.env.TRANSACTIONS_URL || 'http://localhost:8080/transactions';",
          'export const pay = () => fetch(base, { method: "POST" });',
          'export const history = () => fetch(process.env.HISTORY_URL, { method: "POST" });',
          'export const balance = (id) => fetch(`${process.env.BALANCES_URL}/${id}`);',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'frontend web.js:2 | POST ledger/transactions | ledger ledger/app.py:4 POST /transactions (flask)',
      'frontend web.js:3 | POST ledger/transactions | ledger ledger/app.py:4 POST /transactions (flask)',
      'frontend web.js:4 | GET ledger/balances/{} | ledger ledger/app.py:8 GET /balances/<account> (flask)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

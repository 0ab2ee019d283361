import { describe, expect, it } from 'vitest';
import { reportOf, rows, unresolved } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

/** A Kong (DB-less) gateway deployed on Kubernetes: its declarative configuration in a ConfigMap. */
const deploy = (stripPath: string): Record<string, string> => ({
  'k8s/gateway/configmap.yaml': lines(
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: edge-declarative',
    'data:',
    '  kong.yml: |',
    '    _format_version: "3.0"',
    '    services:',
    '      - name: orders',
    '        url: http://orders-svc:8080/v1/orders',
    '        routes:',
    '          - name: orders',
    '            paths:',
    '              - /api/orders',
    ...(stripPath ? [`            strip_path: ${stripPath}`] : []),
    '      - name: billing',
    '        host: billing-svc',
    '        port: 80',
    '        routes:',
    '          - paths: [/api/invoices]',
    '            strip_path: false',
  ),
  'k8s/gateway/deployment.yaml': lines(
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    '  name: edge',
    'spec:',
    '  template:',
    '    metadata:',
    '      labels:',
    '        app: edge',
    '    spec:',
    '      containers:',
    '        - name: kong',
    '          image: kong:3.6',
    '          env:',
    '            - name: KONG_DECLARATIVE_CONFIG',
    '              value: /kong/kong.yml',
    '          volumeMounts:',
    '            - name: cfg',
    '              mountPath: /kong/kong.yml',
    '              subPath: kong.yml',
    '      volumes:',
    '        - name: cfg',
    '          configMap:',
    '            name: edge-declarative',
  ),
  'k8s/gateway/service.yaml': lines(
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    '  name: edge-gw',
    'spec:',
    '  selector:',
    '    app: edge',
  ),
  'k8s/orders.yaml': lines(
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    '  name: orders-svc',
    'spec:',
    '  selector:',
    '    app: orders',
  ),
  'k8s/billing.yaml': lines(
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    '  name: billing-svc',
    'spec:',
    '  selector:',
    '    app: billing',
  ),
});

const services = {
  web: {
    'src/api.ts': lines(
      'export const order = (id: string) => fetch(`http://edge-gw/api/orders/${id}`);',
      "export const invoices = () => fetch('http://edge-gw/api/invoices');",
    ),
  },
  orders: {
    'src/app.ts': lines(
      "import express from 'express';",
      'const app = express();',
      "app.get('/v1/orders/:id', (q, s) => s.send({}));",
    ),
  },
  billing: {
    'src/app.ts': lines(
      "import express from 'express';",
      'const app = express();',
      "app.get('/api/invoices', (q, s) => s.send([]));",
    ),
  },
};

describe('Kong declarative configuration in a Kubernetes ConfigMap (issue 20)', () => {
  it('a call to the Service in front of a kong workload goes through its routes: strip_path (default true) and the service path, strip_path false, host/port services', async () => {
    const r = await reportOf({ ...services, deploy: deploy('') });
    expect(rows(r)).toEqual([
      'web src/api.ts:1 | GET edge-gw/api/orders/{} | orders src/app.ts:3 GET /v1/orders/:id (express)',
      'web src/api.ts:2 | GET edge-gw/api/invoices | billing src/app.ts:3 GET /api/invoices (express)',
    ]);
    expect(r.table[0]!.match).toContain('k8s/gateway/configmap.yaml:14');
    expect(unresolved(r)).toEqual([]);
  });

  it('strip_path: false forwards the whole path: /api/orders/{id} is then no route of orders', async () => {
    const r = await reportOf({ ...services, deploy: deploy('false') });
    expect(rows(r)).toEqual([
      'web src/api.ts:2 | GET edge-gw/api/invoices | billing src/app.ts:3 GET /api/invoices (express)',
    ]);
    expect(unresolved(r).join('\n')).toContain('/v1/orders/api/orders/{}');
  });
});

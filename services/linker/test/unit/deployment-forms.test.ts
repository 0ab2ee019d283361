import { describe, expect, it } from 'vitest';
import { HELM_UNKNOWN, HelmCharts } from '../../src/domain/extract/helm';
import { gaps, reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Issue 20 item 2, the deployment forms the first pass left: Dockerfile arguments, ConfigMaps mounted as
 * files, Helm charts, one repository deployed twice. Each feeds the one deployment model (ADR 0036).
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

/** Two Spring services that serve the same route: only a host tells them apart. */
const twoCatalogs = (): Record<string, Record<string, string>> =>
  Object.fromEntries(
    ['catalog', 'legacy-catalog'].map((name) => [
      name,
      {
        'src/main/java/c/ItemController.java': lines(
          '@RestController',
          'public class ItemController {',
          '  @GetMapping("/items")',
          '  public List<Item> all() { return repo.findAll(); }',
          '}',
        ),
      },
    ]),
  );

const shopClient = lines(
  '@Component',
  'public class CatalogClient {',
  '  private final RestTemplate rest = new RestTemplate();',
  '  @Value("${catalog.url}") private String catalogUrl;',
  '  public List<Item> items() {',
  '    return rest.getForObject(catalogUrl + "/items", List.class);',
  '  }',
  '}',
);

describe('Dockerfile CMD/ENTRYPOINT arguments and ENV', () => {
  it('-Dspring.profiles.active in ENTRYPOINT picks the overlay; a --key=value argument in CMD overrides the files', async () => {
    const r = await reportOf({
      ...twoCatalogs(),
      shop: {
        'src/main/resources/application.yml': lines('catalog:', '  url: http://legacy-catalog:8080'),
        'src/main/resources/application-docker.yml': lines('catalog:', '  url: http://catalog:8080'),
        'src/main/java/s/CatalogClient.java': shopClient,
        Dockerfile: lines(
          'FROM eclipse-temurin:21',
          'COPY target/app.jar /app.jar',
          'ENTRYPOINT ["java", "-Dspring.profiles.active=docker", "-jar", "/app.jar"]',
        ),
      },
      admin: {
        'src/main/resources/application.yml': lines('catalog:', '  url: http://legacy-catalog:8080'),
        'src/main/java/s/CatalogClient.java': shopClient,
        Dockerfile: lines(
          'FROM eclipse-temurin:21',
          'ENV JAVA_OPTS="-Xmx512m -Dserver.port=9000"',
          'ENTRYPOINT java $JAVA_OPTS -jar /app.jar \\',
          '  --catalog.url=http://catalog:8080 --urls "http://+:80"',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'admin src/main/java/s/CatalogClient.java:6 | GET catalog/items | catalog src/main/java/c/ItemController.java:3 GET /items (spring)',
      'shop src/main/java/s/CatalogClient.java:6 | GET catalog/items | catalog src/main/java/c/ItemController.java:3 GET /items (spring)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

/** A Deployment (with its Service) that mounts the ConfigMap `config` at `/config`. */
const mounting = (name: string, config: string): string[] => [
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
  `          image: acme/${name}:1.0`,
  '          volumeMounts:',
  '            - name: settings',
  '              mountPath: /config',
  '      volumes:',
  '        - name: settings',
  '          configMap:',
  `            name: ${config}`,
  '---',
  'apiVersion: v1',
  'kind: Service',
  'metadata:',
  `  name: ${name}`,
  'spec:',
  '  selector:',
  `    app: ${name}`,
];

describe('Kubernetes: ConfigMaps mounted as files', () => {
  it('application.yml and nginx.conf keys of a mounted ConfigMap are that workload’s files; an unmounted one is nobody’s', async () => {
    const r = await reportOf({
      ...twoCatalogs(),
      shop: {
        'src/main/resources/application.yml': lines('catalog:', '  url: http://legacy-catalog:8080'),
        'src/main/java/s/CatalogClient.java': shopClient,
      },
      admin: {
        'src/main/resources/application.yml': lines('catalog:', '  url: http://legacy-catalog:8080'),
        'src/main/java/s/CatalogClient.java': shopClient,
      },
      web: {
        'html/app.js': lines("fetch('/api/catalog/items').then(show);"),
      },
      deploy: {
        'k8s/config.yaml': lines(
          'apiVersion: v1',
          'kind: ConfigMap',
          'metadata:',
          '  name: shop-config',
          'data:',
          '  LOG_LEVEL: info',
          '  application.yml: |',
          '    catalog:',
          '      url: http://catalog:8080',
          '---',
          'apiVersion: v1',
          'kind: ConfigMap',
          'metadata:',
          '  name: admin-config',
          'data:',
          '  application.yml: |',
          '    catalog:',
          '      url: http://catalog:8080',
          '---',
          'apiVersion: v1',
          'kind: ConfigMap',
          'metadata:',
          '  name: web-nginx',
          'data:',
          '  nginx.conf: |',
          '    server {',
          '      location /api/catalog/ { proxy_pass http://catalog:8080/; }',
          '    }',
        ),
        'k8s/shop.yaml': lines(...mounting('shop', 'shop-config')),
        'k8s/web.yaml': lines(...mounting('web', 'web-nginx')),
      },
    });
    expect(rows(r)).toEqual([
      'admin src/main/java/s/CatalogClient.java:6 | GET legacy-catalog/items | legacy-catalog src/main/java/c/ItemController.java:3 GET /items (spring)',
      'shop src/main/java/s/CatalogClient.java:6 | GET catalog/items | catalog src/main/java/c/ItemController.java:3 GET /items (spring)',
      'web html/app.js:1 | GET /api/catalog/items | catalog src/main/java/c/ItemController.java:3 GET /items (spring)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

const helpers = lines(
  '{{/* the usual helpers of `helm create` */}}',
  '{{- define "shop.fullname" -}}',
  '{{- if .Values.fullnameOverride }}',
  '{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}',
  '{{- else }}',
  '{{- $name := default .Chart.Name .Values.nameOverride }}',
  '{{- if contains $name .Release.Name }}',
  '{{- .Release.Name | trunc 63 | trimSuffix "-" }}',
  '{{- else }}',
  '{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}',
  '{{- end }}',
  '{{- end }}',
  '{{- end }}',
);

const shopChart = {
  'charts/shop/Chart.yaml': lines('apiVersion: v2', 'name: shop', 'version: 0.1.0', 'appVersion: "1.4"'),
  'charts/shop/values.yaml': lines(
    'image:',
    '  repository: registry.example.com/acme/shop',
    'catalog:',
    '  host: legacy-catalog',
    'extraEnv:',
    '  log_level: info',
    'tracing:',
    '  enabled: false',
  ),
  'charts/shop/values-prod.yaml': lines('catalog:', '  host: catalog'),
  'charts/shop/templates/_helpers.tpl': helpers,
  'charts/shop/templates/deployment.yaml': lines(
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    '  name: {{ include "shop.fullname" . }}',
    '  labels:',
    '    app.kubernetes.io/name: {{ .Chart.Name | lower }}',
    'spec:',
    '  template:',
    '    metadata:',
    '      labels:',
    '        app: {{ include "shop.fullname" . }}',
    '    spec:',
    '      containers:',
    '        - name: {{ .Chart.Name }}',
    '          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"',
    '          env:',
    '            - name: CATALOG_URL',
    '              value: {{ printf "http://%s:8080" .Values.catalog.host | quote }}',
    '            - name: AUDIT_URL',
    '              value: "http://{{ tpl .Values.audit.host . }}/audit"',
    '            {{- range $k, $v := .Values.extraEnv }}',
    '            - name: {{ $k | upper }}',
    '              value: {{ $v | quote }}',
    '            {{- end }}',
    '            {{- if .Values.tracing.enabled }}',
    '            - name: CATALOG_URL',
    '              value: http://tracing-proxy',
    '            {{- end }}',
  ),
};

describe('Helm charts rendered with their values', () => {
  it('values.yaml with its values-*.yaml overlay, include of a define, Release/Chart names, pipes, range and if; the Service of another chart names the host', async () => {
    const r = await reportOf({
      ...twoCatalogs(),
      shop: {
        'src/main/resources/application.yml': lines('catalog:', '  url: http://legacy-catalog:8080'),
        'src/main/java/s/CatalogClient.java': shopClient,
      },
      deploy: {
        ...shopChart,
        'charts/catalog/Chart.yaml': lines('apiVersion: v2', 'name: catalog-chart'),
        'charts/catalog/values.yaml': lines('service:', '  name: catalog', 'image: acme/catalog:2'),
        'charts/catalog/templates/service.yaml': lines(
          'apiVersion: v1',
          'kind: Service',
          'metadata:',
          '  name: {{ .Values.service.name | default .Release.Name }}',
          'spec:',
          '  selector:',
          '    app: {{ .Release.Name }}',
          '---',
          'apiVersion: apps/v1',
          'kind: Deployment',
          'metadata:',
          '  name: {{ .Release.Name }}',
          'spec:',
          '  template:',
          '    metadata:',
          '      labels:',
          '        app: {{ .Release.Name }}',
          '    spec:',
          '      containers:',
          '        - image: {{ .Values.image }}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'shop src/main/java/s/CatalogClient.java:6 | GET catalog/items | catalog src/main/java/c/ItemController.java:3 GET /items (spring)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });

  it('renders what it knows and writes an unknown part for the rest; lines stay the template’s', () => {
    const charts = new HelmCharts();
    for (const [path, text] of Object.entries(shopChart)) charts.take(path, text);
    const out = new Map(charts.rendered());
    expect([...out.keys()]).toEqual(['charts/shop/templates/deployment.yaml']);
    const rendered = out.get('charts/shop/templates/deployment.yaml')!.split('\n');
    expect(rendered[3]).toBe('  name: shop');
    expect(rendered[14]).toBe('          image: "registry.example.com/acme/shop:1.4"');
    expect(rendered[17]).toBe('              value: "http://catalog:8080"');
    expect(rendered[19]).toBe(`              value: "http://${HELM_UNKNOWN}/audit"`);
    expect(rendered.slice(20, 24).join('\n')).toBe(
      ['', '            - name: LOG_LEVEL', '              value: "info"', ''].join('\n'),
    );
    expect(rendered).not.toContain('              value: http://tracing-proxy');
  });

  it('a chart built to stall the linker (fanned-out includes, nested ranges, deep nesting, a huge indent) is skipped, quickly; the rest of the chart renders', () => {
    const charts = new HelmCharts();
    charts.take('c/Chart.yaml', 'name: c\n');
    charts.take('c/values.yaml', `l: [${Array.from({ length: 200 }, (_, i) => i).join(',')}]\n`);
    const templates: Record<string, string> = {
      'c/templates/fan.yaml': `{{- define "a" }}${'{{ include "a" . }}'.repeat(12)}x{{ end }}\nkind: ConfigMap\ndata: {{ include "a" . }}\n`,
      'c/templates/ranges.yaml': `${'{{ range $.Values.l }}'.repeat(4)}x${'{{ end }}'.repeat(4)}\n`,
      'c/templates/deep.yaml': `${'{{ if 1 }}'.repeat(20_000)}x\n`,
      'c/templates/indent.yaml': 'a: {{ "x" | indent 400000000 }}\n',
      'c/templates/replace.yaml': `a: {{ replace "" "${'y'.repeat(10_000)}" "${'z'.repeat(10_000)}" }}\n`,
      'c/templates/ok.yaml': 'kind: ConfigMap\nname: {{ .Chart.Name }}\n',
    };
    for (const [path, text] of Object.entries(templates)) charts.take(path, text);
    const started = Date.now();
    const out = new Map(charts.rendered());
    expect(Date.now() - started).toBeLessThan(4_000);
    expect([...out]).toEqual([['c/templates/ok.yaml', 'kind: ConfigMap\nname: c\n']]);
  });
});

describe('one repository deployed twice with different environments', () => {
  it('two compose services built from one worker with QUEUE_NAME=a and =b consume both queues; two workloads of one image call two hosts', async () => {
    const r = await reportOf({
      server: {
        'src/queues.ts': lines(
          "import { Queue } from 'bullmq';",
          "const simple = new Queue('simpleQueue', { connection });",
          "const repeatable = new Queue('repeatableQueue', { connection });",
          "export const addSimple = (data: unknown) => simple.add('job', data);",
          "export const addRepeatable = (data: unknown) => repeatable.add('job', data);",
        ),
      },
      worker: {
        'src/worker.ts': lines(
          "import { Worker } from 'bullmq';",
          'const queueName = process.env.QUEUE_NAME!;',
          'export const worker = new Worker(queueName, async (job) => handle(job.data), { connection });',
        ),
        '.env.example': lines('QUEUE_NAME=sampleQueue'),
      },
      configs: {
        'docker-compose.yml': lines(
          'services:',
          '  server:',
          '    build:',
          '      context: ../server',
          '  worker-repeatable:',
          '    build:',
          '      context: ../worker',
          '    environment:',
          '      QUEUE_NAME: repeatableQueue',
          '  worker-simple:',
          '    build:',
          '      context: ../worker',
          '    environment:',
          '      QUEUE_NAME: simpleQueue',
        ),
      },
      ...twoCatalogs(),
      shop: {
        'src/main/java/s/CatalogClient.java': shopClient,
      },
      deploy: {
        'k8s/shop.yaml': lines(
          ...['shop-eu', 'shop-legacy'].flatMap((name, i) => [
            ...(i > 0 ? ['---'] : []),
            'apiVersion: apps/v1',
            'kind: Deployment',
            'metadata:',
            `  name: ${name}`,
            'spec:',
            '  template:',
            '    spec:',
            '      containers:',
            '        - image: acme/shop:1.0',
            '          env:',
            '            - name: CATALOG_URL',
            `              value: http://${i === 0 ? 'catalog' : 'legacy-catalog'}:8080`,
          ]),
        ),
      },
    });
    expect(rows(r)).toEqual([
      'shop src/main/java/s/CatalogClient.java:6 | GET catalog/items | catalog src/main/java/c/ItemController.java:3 GET /items (spring)',
      'shop src/main/java/s/CatalogClient.java:6 | GET legacy-catalog/items | legacy-catalog src/main/java/c/ItemController.java:3 GET /items (spring)',
      'server src/queues.ts:4 | publish to queue `simpleQueue` (Bull) | worker src/worker.ts:3 consume queue `simpleQueue` (Bull)',
      'server src/queues.ts:5 | publish to queue `repeatableQueue` (Bull) | worker src/worker.ts:3 consume queue `repeatableQueue` (Bull)',
    ]);
    expect(unresolved(r)).toEqual([]);
    expect(gaps(r)).toEqual([]);
  });
});

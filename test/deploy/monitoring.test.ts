// The alert rules and the Grafana dashboard in deploy/monitoring name only metrics the code exports (with the
// Prometheus suffixes the exporter adds), so a renamed instrument cannot leave a silent alert behind.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return f === 'node_modules' || f === 'dist' || f === 'test' ? [] : sources(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Every series name the code's instruments produce in the Prometheus format. */
function exportedSeries(): Set<string> {
  const names = new Set<string>();
  const files = [...sources(join(root, 'packages')), ...sources(join(root, 'services'))];
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(
      /\.create(Counter|Histogram|ObservableGauge|ObservableUpDownCounter|UpDownCounter|Gauge)\(\s*'([a-z][a-z0-9_]*)'/g,
    )) {
      const [, kind, name] = m as unknown as [string, string, string];
      if (kind === 'Counter') names.add(`${name}_total`);
      else if (kind === 'Histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
      else names.add(name);
    }
  }
  return names;
}

/** Metric names in a PromQL expression (identifiers before a selector, a range or the end). */
function metricsIn(expr: string): string[] {
  const withoutLabels = expr.replace(/\{[^}]*\}/g, '{}').replace(/"[^"]*"/g, '""');
  const keywords = new Set([
    'sum',
    'rate',
    'max',
    'by',
    'histogram_quantile',
    'clamp_min',
    'le',
    'method',
    'agent',
    'group',
    'topic',
    'service',
    'instance',
  ]);
  return [...withoutLabels.matchAll(/\b([a-z_][a-z0-9_]*)\b(?!\s*\()/g)]
    .map((m) => m[1]!)
    .filter((n) => !keywords.has(n) && n.includes('_'));
}

describe('deploy/monitoring', () => {
  const exported = exportedSeries();
  const known = (n: string): boolean => exported.has(n);

  it('the code exports the metrics the dashboards rely on', () => {
    for (const n of [
      'a2a_requests_total',
      'a2a_request_duration_seconds_bucket',
      'a2a_rate_limit_refusals_total',
      'a2a_sse_streams_open',
      'a2a_bus_consumer_lag',
      'process_uptime_seconds',
      'a2a_tasks',
      'a2a_tasks_count_age_seconds',
      'a2a_credits_charged_total',
      'a2a_runs_in_flight',
      'a2a_run_duration_seconds_bucket',
      'a2a_webhook_deliveries_total',
      'a2a_webhook_retries_total',
      'a2a_webhook_delivery_duration_seconds_bucket',
    ])
      expect(exported, n).toContain(n);
  });

  it('alert rules are well formed and name exported metrics only', () => {
    const doc = parse(readFileSync(join(root, 'deploy/monitoring/alerts.yaml'), 'utf8')) as {
      groups: {
        name: string;
        rules: {
          alert: string;
          expr: string;
          for?: string;
          labels: { severity: string };
          annotations: { summary: string };
        }[];
      }[];
    };
    const rules = doc.groups.flatMap((g) => g.rules);
    expect(rules.length).toBeGreaterThan(4);
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
    for (const r of rules) {
      expect(['page', 'ticket'], r.alert).toContain(r.labels.severity);
      expect(r.annotations.summary, r.alert).toBeTruthy();
      expect(r.for, r.alert).toMatch(/^\d+m$/);
      const names = metricsIn(r.expr).filter((n) => n !== 'up');
      expect(names.length, r.alert).toBeGreaterThanOrEqual(r.alert === 'A2AMetricsDown' ? 0 : 1);
      for (const n of names) expect(known(n), `${r.alert}: ${n}`).toBe(true);
    }
  });

  it('the Grafana dashboard is valid JSON with unique panels that query exported metrics only', () => {
    const dash = JSON.parse(readFileSync(join(root, 'deploy/monitoring/grafana-dashboard.json'), 'utf8')) as {
      uid: string;
      panels: { id: number; title: string; targets: { expr: string }[] }[];
    };
    expect(dash.uid).toBe('a2a-inbound');
    expect(new Set(dash.panels.map((p) => p.id)).size).toBe(dash.panels.length);
    for (const p of dash.panels)
      for (const t of p.targets) {
        const names = metricsIn(t.expr);
        expect(names.length, p.title).toBeGreaterThan(0);
        for (const n of names) expect(known(n), `${p.title}: ${n}`).toBe(true);
      }
  });

  it('the scrape config finds every service pod on its metrics port, under the job the alerts select', () => {
    const scrape = parse(readFileSync(join(root, 'deploy/monitoring/prometheus-scrape.yaml'), 'utf8')) as {
      scrape_configs: {
        job_name: string;
        kubernetes_sd_configs: { role: string; namespaces: { names: string[] } }[];
        relabel_configs: { source_labels?: string[]; regex?: string; action?: string }[];
      }[];
    };
    const [job] = scrape.scrape_configs;
    const keep = (label: string): string | undefined =>
      job!.relabel_configs.find((r) => r.action === 'keep' && r.source_labels?.[0] === label)?.regex;
    // Every `job` the alert rules select is this job.
    const alerts = readFileSync(join(root, 'deploy/monitoring/alerts.yaml'), 'utf8');
    const jobs = [...alerts.matchAll(/job(?:=~?)"([^"]+)"/g)].map((m) => m[1]!);
    expect(jobs.length).toBeGreaterThan(0);
    for (const j of jobs) expect(j).toBe(job!.job_name);
    // The namespaces are the overlays'.
    const namespaces = ['dev', 'production'].map(
      (o) =>
        /^namespace: (\S+)$/m.exec(readFileSync(join(root, `deploy/k8s/overlays/${o}/kustomization.yaml`), 'utf8'))![1],
    );
    expect(job!.kubernetes_sd_configs[0]!.namespaces.names.sort()).toEqual(namespaces.sort());
    // Each service's pod template carries what the relabelling keeps: the part-of label, the scrape
    // annotation, and a container port of that name, the METRICS_PORT of the ConfigMap.
    const metricsPort = /^METRICS_PORT=(\d+)$/m.exec(
      readFileSync(join(root, 'deploy/k8s/base/config.env'), 'utf8'),
    )![1];
    for (const svc of ['gateway', 'tasks', 'runner', 'webhooks', 'linker']) {
      const deployment = readFileSync(join(root, `deploy/k8s/base/${svc}.yaml`), 'utf8')
        .split('\n---\n')
        .map((d) => parse(d) as { kind: string; spec: any })
        .find((d) => d.kind === 'Deployment')!;
      const template = deployment.spec.template;
      expect(template.metadata.labels['app.kubernetes.io/part-of'], svc).toBe(
        keep('__meta_kubernetes_pod_label_app_kubernetes_io_part_of'),
      );
      expect(template.metadata.annotations['prometheus.io/scrape'], svc).toBe(
        keep('__meta_kubernetes_pod_annotation_prometheus_io_scrape'),
      );
      expect(template.metadata.annotations['prometheus.io/port'], svc).toBe(metricsPort);
      const ports = template.spec.containers[0].ports as { name: string; containerPort: number }[];
      expect(ports.find((p) => p.name === keep('__meta_kubernetes_pod_container_port_name'))?.containerPort, svc).toBe(
        Number(metricsPort),
      );
    }
  });

  it('the outcome and reason values the rules and panels select are values the code records', () => {
    const union = (file: string, type: string): string[] => {
      const m = new RegExp(`export type ${type} =([^;]+);`).exec(readFileSync(join(root, file), 'utf8'))!;
      return [...m[1]!.matchAll(/'([A-Za-z_]+)'/g)].map((x) => x[1]!);
    };
    // a2a_requests_total{outcome}: ok, an error code in lower case, or http_<status> (services/gateway/src/http/metrics.ts).
    const requestOutcomes = new Set([
      'ok',
      ...union('packages/errors/src/index.ts', 'ErrorCode').map((c) => c.toLowerCase()),
    ]);
    const webhookOutcomes = new Set(union('services/webhooks/src/delivery.ts', 'DeliveryOutcome'));
    const retryReasons = new Set(union('services/webhooks/src/delivery.ts', 'RetryReason'));
    expect(requestOutcomes.has('internal') && webhookOutcomes.has('delivered') && retryReasons.has('network')).toBe(
      true,
    );
    const dash = JSON.parse(readFileSync(join(root, 'deploy/monitoring/grafana-dashboard.json'), 'utf8')) as {
      panels: { targets: { expr: string }[] }[];
    };
    const alerts = parse(readFileSync(join(root, 'deploy/monitoring/alerts.yaml'), 'utf8')) as {
      groups: { rules: { expr: string }[] }[];
    };
    const exprs = [
      ...alerts.groups.flatMap((g) => g.rules.map((r) => r.expr)),
      ...dash.panels.flatMap((p) => p.targets.map((t) => t.expr)),
    ];
    let checked = 0;
    for (const expr of exprs)
      for (const sel of expr.matchAll(/(a2a_[a-z_]+)\{([^}]*)\}/g)) {
        const [, metric, matchers] = sel as unknown as [string, string, string];
        for (const m of matchers.matchAll(/(outcome|reason)(?:=~|!=|=)"([^"]*)"/g)) {
          const [, label, values] = m as unknown as [string, string, string];
          const allowed = metric.startsWith('a2a_webhook_')
            ? label === 'reason'
              ? retryReasons
              : webhookOutcomes
            : requestOutcomes;
          for (const v of values.split('|')) {
            checked++;
            expect(allowed.has(v) || /^http_\d{3}$/.test(v), `${metric}{${label}="${v}"} in ${expr}`).toBe(true);
          }
        }
      }
    expect(checked).toBeGreaterThan(3);
  });

  it('the metric-name check would catch a misspelt metric', () => {
    expect(metricsIn('sum(rate(a2a_request_total{outcome="ok"}[5m]))').filter((n) => !known(n))).toEqual([
      'a2a_request_total',
    ]);
  });
});

/**
 * @module monitoring/dashboard
 * The Grafana dashboard (deploy/monitoring/sidecar-injector-dashboard.json) as data: each panel
 * says what question it answers (docs/monitoring.md explains them, checked by a test) and holds
 * plain PromQL, with no Grafana variables inside the queries, so promtool and the e2e scenario's
 * real Prometheus run them exactly as Grafana sends them. Only the data source is a variable.
 */
import { WEBHOOK_NAME_MATCHER } from './alerts.js';

interface PanelQuery {
  expr: string;
  legend: string;
}

export interface PanelSpec {
  title: string;
  /** The question the panel answers (Grafana shows it as the panel's description). */
  answers: string;
  kind: 'timeseries' | 'stat';
  unit: string;
  queries: PanelQuery[];
}

const APISERVER = `${WEBHOOK_NAME_MATCHER}, type="admit"`;
const ours = (q: number) => `histogram_quantile(${q}, sum by (le) (rate(sidecar_injector_request_duration_seconds_bucket[5m])))`;
const theirs = (q: number) => `histogram_quantile(${q}, sum by (le) (rate(apiserver_admission_webhook_admission_duration_seconds_bucket{${APISERVER}}[5m])))`;

export function dashboardPanels(): PanelSpec[] {
  return [
    {
      title: 'Admission requests by outcome',
      answers: 'How many pods per second the webhook injects, skips, fails, or gets invalid requests for, summed over replicas.',
      kind: 'timeseries',
      unit: 'reqps',
      queries: [{ expr: 'sum by (outcome) (rate(sidecar_injector_request_duration_seconds_count[5m]))', legend: '{{outcome}}' }],
    },
    {
      title: 'Latency: the injector and the apiserver',
      answers:
        "How long one admission takes: the injector's own answer time (p50, p99) and what the apiserver waits for the webhook, network and TLS included (p50, p99). Compare with the webhook's timeoutSeconds.",
      kind: 'timeseries',
      unit: 's',
      queries: [
        { expr: ours(0.5), legend: 'injector p50' },
        { expr: ours(0.99), legend: 'injector p99' },
        { expr: theirs(0.5), legend: 'apiserver p50' },
        { expr: theirs(0.99), legend: 'apiserver p99' },
      ],
    },
    {
      title: 'Denials and errors',
      answers:
        "Which pods are refused or admitted without their sidecar, and why: failed injections by error code and answer, error responses by HTTP status, and the apiserver's rejections by webhook and error type and its fail-open admissions.",
      kind: 'timeseries',
      unit: 'reqps',
      queries: [
        { expr: 'sum by (code, action) (rate(sidecar_injector_failures_total[5m])) > 0', legend: 'failed {{code}} ({{action}})' },
        { expr: 'sum by (code) (rate(sidecar_injector_requests_total{code!="200"}[5m])) > 0', legend: 'HTTP {{code}}' },
        {
          expr: `sum by (name, error_type) (rate(apiserver_admission_webhook_rejection_count{${APISERVER}}[5m]))`,
          legend: 'apiserver rejected: {{name}} {{error_type}}',
        },
        { expr: `sum by (name) (rate(apiserver_admission_webhook_fail_open_count{${APISERVER}}[5m]))`, legend: 'apiserver failed open: {{name}}' },
      ],
    },
    {
      title: 'Render memo hits',
      answers: 'How often the render memo serves a template render (pods that agree on everything the templates read share one render).',
      kind: 'timeseries',
      unit: 'percentunit',
      queries: [
        {
          expr: 'sum(rate(sidecar_injector_render_memo_total{result="hit"}[5m])) / sum(rate(sidecar_injector_render_memo_total[5m]))',
          legend: 'render memo hit ratio',
        },
      ],
    },
    {
      title: 'Certificate expiry',
      answers:
        'Days until each certificate expires: the serving certificate, its CA (what the caBundle holds) and the client CA; the soonest over all replicas. The alert fires below 14 days.',
      kind: 'stat',
      unit: 'd',
      queries: [{ expr: 'min by (certificate) (sidecar_injector_certificate_expiry_timestamp_seconds - time()) / 86400', legend: '{{certificate}}' }],
    },
    {
      title: 'Pods by sidecar state',
      answers:
        'How many pods carry the current sidecar, a stale one, none although they should (missing), are skipped or belong to another injector, as the reconcile leader sees them (serve --reconcile).',
      kind: 'timeseries',
      unit: 'short',
      queries: [{ expr: 'sum by (state) (sidecar_injector_pods)', legend: '{{state}}' }],
    },
    {
      title: 'Reloads',
      answers: 'Config and certificate reloads per hour by result, and whether the newest files of each kind are the ones served (1) or were refused (0).',
      kind: 'timeseries',
      unit: 'short',
      queries: [
        { expr: 'sum by (kind, result) (increase(sidecar_injector_reloads_total[1h]))', legend: '{{kind}} {{result}} per hour' },
        { expr: 'min by (kind) (sidecar_injector_last_reload_successful)', legend: '{{kind}} newest files served' },
      ],
    },
    {
      title: 'caBundle and reconcile leader',
      answers:
        "Whether every replica's last caBundle check found the webhook trusting the serving CA (1), and how many replicas hold the reconcile Lease (exactly 1 with serve --reconcile).",
      kind: 'timeseries',
      unit: 'short',
      queries: [
        { expr: 'min by (webhook_configuration) (sidecar_injector_cabundle_in_sync)', legend: 'caBundle in sync: {{webhook_configuration}}' },
        { expr: 'sum(sidecar_injector_reconcile_leader)', legend: 'reconcile leaders' },
      ],
    },
    {
      title: 'Requests in flight',
      answers: 'Admission requests being processed right now, summed over replicas: a rising line while latency rises means the injector is saturated.',
      kind: 'timeseries',
      unit: 'short',
      queries: [{ expr: 'sum(sidecar_injector_in_flight_requests)', legend: 'in flight' }],
    },
  ];
}

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
/** Days left: red under the alert's 14, orange under 30. */
const EXPIRY_THRESHOLDS = {
  mode: 'absolute',
  steps: [
    { color: 'red', value: null },
    { color: 'orange', value: 14 },
    { color: 'green', value: 30 },
  ],
};

/** The dashboard in Grafana's JSON model (schemaVersion 39: Grafana 10 and 11 import it as is). */
export function grafanaDashboard(): Record<string, unknown> {
  const panels = dashboardPanels().map((p, i) => ({
    id: i + 1,
    type: p.kind,
    title: p.title,
    description: p.answers,
    datasource: DATASOURCE,
    gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: Math.floor(i / 2) * 8 },
    fieldConfig: { defaults: { unit: p.unit, ...(p.kind === 'stat' ? { thresholds: EXPIRY_THRESHOLDS } : {}) }, overrides: [] },
    options:
      p.kind === 'stat'
        ? { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'background' }
        : { legend: { displayMode: 'list', placement: 'bottom', showLegend: true }, tooltip: { mode: 'multi', sort: 'none' } },
    targets: p.queries.map((q, j) => ({ refId: String.fromCharCode(65 + j), datasource: DATASOURCE, expr: q.expr, legendFormat: q.legend })),
  }));
  return {
    title: 'Sidecar injector',
    uid: 'sidecar-injector',
    description:
      'The sidecar injector webhook: admissions, latency, failures, render memo, certificates, sidecar states, reloads. Panels are explained in docs/monitoring.md.',
    tags: ['sidecar-injector', 'admission-webhook'],
    editable: true,
    schemaVersion: 39,
    version: 1,
    time: { from: 'now-6h', to: 'now' },
    refresh: '30s',
    templating: {
      list: [{ name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', current: {}, hide: 0 }],
    },
    annotations: { list: [] },
    panels,
  };
}

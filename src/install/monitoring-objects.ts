/**
 * @module install/monitoring-objects
 * The prometheus-operator objects of `manifests --prometheus-rule --service-monitor` (and of the
 * chart's monitoring values): the alerting rules rendered from src/monitoring for this install's
 * name, namespace and timeout, and a ServiceMonitor scraping the Service's `http-monitoring`
 * port. Off by default: without the operator's CRDs the apiserver would refuse them.
 */
import { prometheusRule } from '../monitoring/render-monitoring.js';
import { commonLabels, selectorLabels, type InstallContext } from './install-context.js';

const MONITORING_PORT_NAME = 'http-monitoring';

function labels(ctx: InstallContext): Record<string, string> {
  return { ...commonLabels(ctx), ...ctx.options.monitoringLabels };
}

export function monitoringObjects(ctx: InstallContext): Array<Record<string, unknown>> {
  const o = ctx.options;
  const out: Array<Record<string, unknown>> = [];
  if (o.prometheusRule) {
    out.push(prometheusRule({ name: o.name, namespace: o.namespace, labels: labels(ctx) }, { timeoutSeconds: String(o.timeoutSeconds) }));
  }
  if (o.serviceMonitor) {
    out.push({
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'ServiceMonitor',
      metadata: { name: o.name, namespace: o.namespace, labels: labels(ctx) },
      spec: {
        selector: { matchLabels: selectorLabels(ctx) },
        namespaceSelector: { matchNames: [o.namespace] },
        endpoints: [{ port: MONITORING_PORT_NAME, path: '/metrics', scheme: 'http', interval: '30s' }],
      },
    });
  }
  return out;
}

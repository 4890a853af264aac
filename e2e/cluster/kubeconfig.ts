/**
 * @module e2e/cluster/kubeconfig
 * An admin kubeconfig with the CA and the client certificate embedded, so that it works from
 * any directory and for any tool (kubectl, helm, our own CLI) without further files.
 */
import { readFileSync } from 'node:fs';

const b64 = (file: string): string => readFileSync(file).toString('base64');

export function kubeconfigYaml(server: string, caCert: string, cert: string, key: string, user: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: e2e',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${b64(caCert)}`,
    'users:',
    `- name: ${user}`,
    '  user:',
    `    client-certificate-data: ${b64(cert)}`,
    `    client-key-data: ${b64(key)}`,
    'contexts:',
    '- name: e2e',
    '  context:',
    '    cluster: e2e',
    `    user: ${user}`,
    'current-context: e2e',
    '',
  ].join('\n');
}

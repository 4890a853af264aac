/**
 * @module e2e/cluster/pki
 * The control plane's PKI, made with openssl: a cluster CA, the apiserver's serving certificate
 * (SANs 127.0.0.1, the node's bridge address, localhost and the in-cluster names), client
 * certificates for the admin (group system:masters), the controller-manager (its RBAC bootstrap
 * identity) and the kubelet (node.ts), and the service-account signing key. Everything lives in
 * the state directory.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Pki {
  dir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  saKey: string;
  saPub: string;
  admin: { cert: string; key: string };
  controllerManager: { cert: string; key: string };
  /** What the apiserver presents to webhooks: ca.crt, client.crt, client.key, admission.yaml. */
  webhookClientDir: string;
  admissionConfig: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export function clientCert(dir: string, name: string, subject: string, ca = 'ca'): { cert: string; key: string } {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.crt`);
  const ext = join(dir, `${name}.ext`);
  writeFileSync(ext, 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n');
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key], dir);
  openssl(['req', '-new', '-key', key, '-subj', subject, '-out', `${name}.csr`], dir);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.crt`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-days',
      '30',
      '-sha256',
      '-extfile',
      ext,
      '-out',
      cert,
    ],
    dir,
  );
  return { cert, key };
}

export function createPki(dir: string): Pki {
  mkdirSync(dir, { recursive: true });
  const p = (f: string): string => join(dir, f);
  if (!existsSync(p('ca.crt'))) {
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'], dir);
    openssl(
      [
        'req',
        '-x509',
        '-new',
        '-key',
        'ca.key',
        '-subj',
        '/CN=sidecar-injector-e2e-ca',
        '-days',
        '30',
        '-sha256',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
        '-out',
        'ca.crt',
      ],
      dir,
    );
    writeFileSync(
      p('server.ext'),
      [
        'basicConstraints=CA:FALSE',
        'keyUsage=critical,digitalSignature,keyEncipherment',
        'extendedKeyUsage=serverAuth',
        // 10.88.0.1: the node's bridge, where the apiserver listens when a node runs (node-config.ts);
        // 10.0.0.1: the `kubernetes` Service, which in-cluster clients use.
        'subjectAltName=IP:127.0.0.1,IP:10.88.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local',
        '',
      ].join('\n'),
    );
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'server.key'], dir);
    openssl(['req', '-new', '-key', 'server.key', '-subj', '/CN=kube-apiserver', '-out', 'server.csr'], dir);
    openssl(
      [
        'x509',
        '-req',
        '-in',
        'server.csr',
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-days',
        '30',
        '-sha256',
        '-extfile',
        'server.ext',
        '-out',
        'server.crt',
      ],
      dir,
    );
    openssl(['genrsa', '-out', 'sa.key', '2048'], dir);
    openssl(['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
    clientCert(dir, 'admin', '/O=system:masters/CN=e2e-admin');
    clientCert(dir, 'kube-controller-manager', '/CN=system:kube-controller-manager');
    webhookClient(join(dir, 'webhook-client'));
  }
  return {
    dir,
    caCert: p('ca.crt'),
    caKey: p('ca.key'),
    serverCert: p('server.crt'),
    serverKey: p('server.key'),
    saKey: p('sa.key'),
    saPub: p('sa.pub'),
    admin: { cert: p('admin.crt'), key: p('admin.key') },
    controllerManager: { cert: p('kube-controller-manager.crt'), key: p('kube-controller-manager.key') },
    webhookClientDir: p('webhook-client'),
    admissionConfig: p('webhook-client/admission.yaml'),
  };
}

/**
 * The apiserver's identity towards webhooks (`serve --client-ca`): its own CA, a client
 * certificate named kube-apiserver, and the AdmissionConfiguration whose kubeconfig presents it
 * to every webhook (user "*"), as docs/install.md describes for a self-managed apiserver.
 */
function webhookClient(dir: string): void {
  mkdirSync(dir, { recursive: true });
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'], dir);
  openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      'ca.key',
      '-subj',
      '/CN=sidecar-injector-e2e-webhook-client-ca',
      '-days',
      '30',
      '-sha256',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      'ca.crt',
    ],
    dir,
  );
  clientCert(dir, 'client', '/CN=kube-apiserver');
  const kubeconfig = join(dir, 'kubeconfig.yaml');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'users:',
      '- name: "*"',
      '  user:',
      `    client-certificate: ${join(dir, 'client.crt')}`,
      `    client-key: ${join(dir, 'client.key')}`,
      '',
    ].join('\n'),
  );
  const plugin = (name: string): string[] => [
    `- name: ${name}`,
    '  configuration:',
    '    apiVersion: apiserver.config.k8s.io/v1',
    '    kind: WebhookAdmissionConfiguration',
    `    kubeConfigFile: ${kubeconfig}`,
  ];
  writeFileSync(
    join(dir, 'admission.yaml'),
    [
      'apiVersion: apiserver.config.k8s.io/v1',
      'kind: AdmissionConfiguration',
      'plugins:',
      ...plugin('MutatingAdmissionWebhook'),
      ...plugin('ValidatingAdmissionWebhook'),
      '',
    ].join('\n'),
  );
}

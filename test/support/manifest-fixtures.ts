/**
 * @module test/support/manifest-fixtures
 * Deterministic generator of large manifests for complexity guards and benchmarks: the M200 /
 * M1000 fixtures of performance.md (about 3.9 KB per document, half Deployments, the rest
 * ConfigMaps with a block-scalar config file), with comments, quoted and YAML-1.1-sensitive
 * values (`0644`, `"on"`), so parsing cost is representative.
 */

function deployment(i: number): string {
  return `# Deployment ${i}: generated fixture
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-${i}
  namespace: team-${i % 7}
  labels:
    app: app-${i}
    version: v${i % 3}
    tier: backend
  annotations:
    deployment.kubernetes.io/revision: "3"
    description: "Service number ${i}: handles requests, with # and : inside"
spec:
  replicas: 3
  revisionHistoryLimit: 10
  selector:
    matchLabels:
      app: app-${i}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 0
  template:
    metadata:
      labels:
        app: app-${i}
        version: v${i % 3}
      annotations:
        prometheus.io/scrape: "true"
        prometheus.io/port: "9090"
    spec:
      serviceAccountName: app-${i}
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        fsGroup: 2000
      containers:
        - name: app
          image: registry.example.com/team/app-${i}:1.${i}.0
          imagePullPolicy: IfNotPresent
          args: ["--port=8080", "--verbose", "--config=/etc/app/config.yaml"]
          ports:
            - name: http
              containerPort: 8080
              protocol: TCP
            - name: metrics
              containerPort: 9090
          env:
            - name: LOG_LEVEL
              value: info
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            - name: POD_NAMESPACE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.namespace
            - name: FEATURE_FLAG
              value: "on"
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
            limits:
              cpu: "1"
              memory: 512Mi
          readinessProbe:
            httpGet:
              path: /healthz
              port: http
            initialDelaySeconds: 5
            periodSeconds: 10
          livenessProbe:
            httpGet:
              path: /livez
              port: http
            failureThreshold: 3
          volumeMounts:
            - name: config
              mountPath: /etc/app
              readOnly: true
            - name: tmp
              mountPath: /tmp
        - name: helper
          image: registry.example.com/team/helper:2.0.${i % 10}
          command:
            - /bin/sh
            - -c
            - |
              while true; do
                echo "tick ${i}"
                sleep 30
              done
          resources:
            requests:
              cpu: 10m
              memory: 16Mi
      volumes:
        - name: config
          configMap:
            name: app-${i}-config
            defaultMode: 0644
        - name: tmp
          emptyDir: {}
      tolerations:
        - key: dedicated
          operator: Equal
          value: backend
          effect: NoSchedule
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 100
              podAffinityTerm:
                topologyKey: kubernetes.io/hostname
                labelSelector:
                  matchLabels:
                    app: app-${i}
`;
}

function configMap(i: number): string {
  let data = '';
  for (let k = 0; k < 50; k++) data += `  key-${k}: "value number ${k} for config ${i}, with some padding text here to grow size"\n`;
  return `# config for app ${i}
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-${i}-config
  namespace: team-${i % 7}
  labels:
    app: app-${i}
data:
  config.yaml: |
    server:
      port: 8080
      debug: false
    features: [a, b, c]
${data}`;
}

/** `count` documents joined by `---` lines: even ones Deployments, odd ones ConfigMaps. */
export function generateManifest(count: number): string {
  const docs: string[] = [];
  for (let i = 0; i < count; i++) docs.push(i % 2 === 0 ? deployment(i) : configMap(i));
  return docs.join('---\n');
}

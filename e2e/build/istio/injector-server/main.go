// Command istio-injector-server serves Istio's own sidecar-injection webhook handler
// (istio.io/istio/pkg/kube/inject, the code istiod runs) over HTTPS, standalone, so that the
// benchmark can drive it with the same harness, certificate, TLS settings, config and templates
// as our `serve`. It is our code: a thin main around Istio's exported NewWebhook.
//
//	istio-injector-server -port 0 -cert tls.crt -key tls.key \
//	  -inject-config config.yaml -values values.json -mesh mesh.yaml
//
// It prints "listening on https://127.0.0.1:PORT" once it serves, and stops on SIGTERM/SIGINT.
// Istio has no result cache, so every request is a full injection.
//
// What istiod has and this has not: no Kubernetes client. Native sidecars follow
// ENABLE_NATIVE_SIDECARS (set it to "true" for Kubernetes >= 1.33 behaviour: with no client,
// Istio's "auto" mode detects nothing and falls back to classic sidecars); no ProxyConfig
// resources (the mesh config's defaultConfig and the pod's proxy.istio.io/config apply, as in a
// cluster without ProxyConfig objects); no OpenShift namespace lookups.
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"istio.io/istio/pilot/pkg/model"
	"istio.io/istio/pkg/config/mesh"
	"istio.io/istio/pkg/config/mesh/meshwatcher"
	"istio.io/istio/pkg/kube/inject"
	"istio.io/istio/pkg/kube/multicluster"
)

func main() {
	host := flag.String("host", "127.0.0.1", "address to listen on (loopback)")
	port := flag.Int("port", 0, "port (0 picks a free one)")
	certFile := flag.String("cert", "", "PEM serving certificate (chain)")
	keyFile := flag.String("key", "", "PEM private key")
	injectConfig := flag.String("inject-config", "", "the istio-sidecar-injector ConfigMap's config key, as a file")
	valuesFile := flag.String("values", "", "the istio-sidecar-injector ConfigMap's values key, as a file")
	meshFile := flag.String("mesh", "", "the istio ConfigMap's mesh key, as a file")
	revision := flag.String("revision", "default", "the istio.io/rev this injector serves")
	flag.Parse()
	if *certFile == "" || *keyFile == "" || *injectConfig == "" || *valuesFile == "" || *meshFile == "" {
		fail("-cert, -key, -inject-config, -values and -mesh are required")
	}

	meshConfig, err := mesh.ReadMeshConfig(*meshFile)
	if err != nil {
		fail("reading mesh config %s: %v", *meshFile, err)
	}
	// As istiod: the environment carries the mesh config and the (here empty) ProxyConfig set,
	// from which each pod's effective proxy config is computed.
	store := model.NewFakeStore()
	env := &model.Environment{Watcher: meshwatcher.NewTestWatcher(meshConfig), ConfigStore: store}
	env.SetPushContext(&model.PushContext{ProxyConfigs: model.GetProxyConfigs(store, meshConfig)})

	watcher, err := inject.NewFileWatcher(*injectConfig, *valuesFile)
	if err != nil {
		fail("watching %s and %s: %v", *injectConfig, *valuesFile, err)
	}
	mux := http.NewServeMux()
	wh, err := inject.NewWebhook(inject.WebhookParameters{
		Watcher:  watcher,
		Env:      env,
		Mux:      mux,
		Revision: *revision,
		// No clusters registered: node lookups find nothing (see the package comment).
		MultiCluster: multicluster.NewFakeController(),
	})
	if err != nil {
		fail("creating Istio's webhook: %v", err)
	}
	stop := make(chan struct{})
	wh.Run(stop)
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })

	cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		fail("loading the certificate: %v", err)
	}
	// Same edge as our serve: TLS 1.2+, HTTP/1.1 keep-alive only (no HTTP/2).
	server := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}},
		TLSNextProto:      map[string]func(*http.Server, *tls.Conn, http.Handler){},
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(*host, fmt.Sprint(*port)))
	if err != nil {
		fail("listening: %v", err)
	}
	fmt.Printf("listening on https://%s\n", ln.Addr().String())

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sig
		close(stop)
		_ = server.Close()
	}()
	if err := server.ServeTLS(ln, "", ""); err != nil && err != http.ErrServerClosed {
		fail("serving: %v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "istio-injector-server: "+format+"\n", args...)
	os.Exit(1)
}

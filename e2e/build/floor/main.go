// Command webhook-floor is the floor of any admission webhook: an HTTPS server on Go's standard
// library that decodes the AdmissionReview (encoding/json, as any Go webhook does) and answers
// allowed with the request's uid, nothing else. The pod-create benchmark (bench/cluster.ts)
// puts it behind the real kube-apiserver beside our webhook and Istio's: what the apiserver
// spends on a webhook call that does no work is the part no webhook can remove.
//
//	webhook-floor -port 0 -cert tls.crt -key tls.key [-patch patch.json] [-record review.json]
//
// -patch answers every review with that JSON patch (the bytes of another webhook's answer for
// the same pod): the apiserver's own work on that patch, with no work on the server side. Where
// the patch holds KUBE_API_ACCESS, the name of the review's own service-account token volume is
// put in its place (the apiserver names that volume at random for every pod, and a patch that
// rewrites the volume list, as Istio's does, must carry the pod's own name).
// -record writes the first review received to a file (the exact bytes the apiserver sends, to
// replay to the other servers). It prints "listening on https://HOST:PORT" once it serves and
// stops on SIGTERM/SIGINT. TLS 1.2+, HTTP/1.1 keep-alive only: the same edge as our serve and
// istio-injector-server.
package main

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

type review struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Request    *struct {
		UID string `json:"uid"`
	} `json:"request,omitempty"`
	Response *response `json:"response,omitempty"`
}

type response struct {
	UID       string  `json:"uid"`
	Allowed   bool    `json:"allowed"`
	Patch     string  `json:"patch,omitempty"`
	PatchType *string `json:"patchType,omitempty"`
}

const tokenPlaceholder = "KUBE_API_ACCESS"

var tokenVolume = regexp.MustCompile(`kube-api-access-[a-z0-9]{5}`)

func main() {
	host := flag.String("host", "127.0.0.1", "address to listen on (loopback)")
	port := flag.Int("port", 0, "port (0 picks a free one)")
	certFile := flag.String("cert", "", "PEM serving certificate (chain)")
	keyFile := flag.String("key", "", "PEM private key")
	patchFile := flag.String("patch", "", "a JSON patch to answer every review with (default: none)")
	recordFile := flag.String("record", "", "write the first review received to this file")
	flag.Parse()
	if *certFile == "" || *keyFile == "" {
		fail("-cert and -key are required")
	}
	var patch string
	perPod := false
	if *patchFile != "" {
		raw, err := os.ReadFile(*patchFile)
		if err != nil {
			fail("reading %s: %v", *patchFile, err)
		}
		var ops []any
		if err := json.Unmarshal(raw, &ops); err != nil {
			fail("%s is not a JSON patch (an array): %v", *patchFile, err)
		}
		patch = string(raw)
		perPod = strings.Contains(patch, tokenPlaceholder)
		if !perPod {
			patch = base64.StdEncoding.EncodeToString(raw)
		}
	}
	jsonPatch := "JSONPatch"
	var once sync.Once

	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	mux.HandleFunc("/inject", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 7<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var in review
		if err := json.Unmarshal(body, &in); err != nil || in.Request == nil {
			http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
			return
		}
		if *recordFile != "" {
			once.Do(func() {
				if err := os.WriteFile(*recordFile, body, 0o644); err != nil {
					fmt.Fprintf(os.Stderr, "webhook-floor: recording: %v\n", err)
				}
			})
		}
		out := review{APIVersion: in.APIVersion, Kind: "AdmissionReview", Response: &response{UID: in.Request.UID, Allowed: true}}
		if patch != "" {
			out.Response.Patch = patch
			if perPod {
				out.Response.Patch = base64.StdEncoding.EncodeToString([]byte(strings.ReplaceAll(patch, tokenPlaceholder, string(tokenVolume.Find(body)))))
			}
			out.Response.PatchType = &jsonPatch
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})

	cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		fail("loading the certificate: %v", err)
	}
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
		_ = server.Close()
	}()
	if err := server.ServeTLS(ln, "", ""); err != nil && err != http.ErrServerClosed {
		fail("serving: %v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "webhook-floor: "+format+"\n", args...)
	os.Exit(1)
}

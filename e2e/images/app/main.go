// The e2e suite's test images (e2e/build/images.sh): one static binary, no dependencies, that
// plays every part a pod here needs, so the node runs pods with no registry and no downloads.
//
//	app serve [ADDR]             the app: HTTP "hello from <hostname>" (default :8080); with
//	    [--check-at-start URL]   --check-at-start it GETs URL once before it serves, and says
//	                             in its log and in the header X-Checked-At-Start whether URL
//	                             answered (is the sidecar already up when the app starts?)
//	app proxy sidecar ARGS...    the sidecar, in the shape of Istio's proxyv2 (`proxy sidecar
//	                             ...`, arguments ignored): readiness on :15021/healthz/ready,
//	                             a request counter on :15090/stats/prometheus, and inbound
//	                             traffic on :15006 proxied to the app on 127.0.0.1:8080 with the
//	                             response header X-Proxied-By, so its effect is observable
//	app pause                    the sandbox's pause process (PID 1: reaps zombies)
//	app sleep SECONDS            sleep, then exit 0
//	app get URL [SECONDS]        HTTP GET; print the body; exit 1 on error or a non-2xx status
//	app connect HOST:PORT [SECONDS]   open a TCP connection; exit 0 if it connects, else 1
//	app dns SERVER NAME [SECONDS]     ask the name server SERVER (UDP port 53) for NAME; exit 0
//	                             and print the addresses if it answers, else 1
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

// exitOnSignal makes SIGTERM end the process at once: as PID 1 in a container the default
// action of SIGTERM is ignored, and the kubelet would wait out the whole grace period.
func exitOnSignal() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
	go func() { <-c; os.Exit(0) }()
}

func seconds(args []string, i int, def int) time.Duration {
	if len(args) <= i {
		return time.Duration(def) * time.Second
	}
	n, err := strconv.Atoi(args[i])
	if err != nil || n <= 0 {
		fail("not a number of seconds: %q", args[i])
	}
	return time.Duration(n) * time.Second
}

func get(rawURL string, timeout time.Duration) (string, error) {
	client := http.Client{Timeout: timeout}
	res, err := client.Get(rawURL)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return "", err
	}
	if res.StatusCode/100 != 2 {
		return string(body), fmt.Errorf("GET %s: %s", rawURL, res.Status)
	}
	return string(body), nil
}

func serve(args []string) {
	addr := ":8080"
	checked := ""
	for i := 0; i < len(args); i++ {
		if args[i] == "--check-at-start" && i+1 < len(args) {
			i++
			if _, err := get(args[i], 2*time.Second); err != nil {
				checked = "no"
				fmt.Printf("at start, %s did not answer: %v\n", args[i], err)
			} else {
				checked = "yes"
				fmt.Printf("at start, %s answered\n", args[i])
			}
		} else {
			addr = args[i]
		}
	}
	host, _ := os.Hostname()
	exitOnSignal()
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if checked != "" {
			w.Header().Set("X-Checked-At-Start", checked)
		}
		fmt.Fprintf(w, "hello from %s\n", host)
	})
	fmt.Println("serving on", addr)
	fail("%v", http.ListenAndServe(addr, nil))
}

func proxy() {
	host, _ := os.Hostname()
	var proxied atomic.Int64
	exitOnSignal()
	health := http.NewServeMux()
	health.HandleFunc("/healthz/ready", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ready") })
	stats := http.NewServeMux()
	stats.HandleFunc("/stats/prometheus", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "e2e_proxy_requests_total %d\n", proxied.Load())
	})
	upstream, _ := url.Parse("http://127.0.0.1:8080")
	rp := httputil.NewSingleHostReverseProxy(upstream)
	rp.ModifyResponse = func(res *http.Response) error {
		proxied.Add(1)
		res.Header.Set("X-Proxied-By", "sidecar-proxy/"+host)
		return nil
	}
	errs := make(chan error, 3)
	go func() { errs <- http.ListenAndServe(":15021", health) }()
	go func() { errs <- http.ListenAndServe(":15090", stats) }()
	go func() { errs <- http.ListenAndServe(":15006", rp) }()
	fmt.Println("proxy: ready on :15021, stats on :15090, inbound :15006 -> 127.0.0.1:8080")
	fail("proxy: %v", <-errs)
}

func pause() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		for {
			var ws syscall.WaitStatus
			if _, err := syscall.Wait4(-1, &ws, 0, nil); err != nil {
				time.Sleep(time.Second)
			}
		}
	}()
	<-c
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: app serve|proxy|pause|sleep|get|connect|dns ...")
	}
	args := os.Args[2:]
	switch os.Args[1] {
	case "serve":
		serve(args)
	case "proxy":
		proxy()
	case "pause":
		pause()
	case "sleep":
		exitOnSignal()
		time.Sleep(seconds(args, 0, 3600))
	case "get":
		if len(args) < 1 {
			fail("usage: app get URL [SECONDS]")
		}
		body, err := get(args[0], seconds(args, 1, 5))
		fmt.Print(body)
		if err != nil {
			fail("%v", err)
		}
	case "connect":
		if len(args) < 1 {
			fail("usage: app connect HOST:PORT [SECONDS]")
		}
		conn, err := net.DialTimeout("tcp", args[0], seconds(args, 1, 5))
		if err != nil {
			fail("connect %s: %v", args[0], err)
		}
		conn.Close()
		fmt.Println("connected to", args[0])
	case "dns":
		if len(args) < 2 {
			fail("usage: app dns SERVER NAME [SECONDS]")
		}
		timeout := seconds(args, 2, 5)
		r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{Timeout: timeout}).DialContext(ctx, "udp", net.JoinHostPort(args[0], "53"))
		}}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		addrs, err := r.LookupHost(ctx, args[1])
		if err != nil {
			fail("dns %s via %s: %v", args[1], args[0], err)
		}
		fmt.Println(addrs)
	default:
		fail("unknown command %q: serve|proxy|pause|sleep|get|connect|dns", os.Args[1])
	}
}

// go-syntax: the Go reference for the grammars the injector copies from Go's standard library,
// time.ParseDuration and regexp.Compile. Reads {"durations": [...], "regexps": [...]} (JSON) on
// stdin and prints, for each input in order, what Go decided: the value or the error text, and
// for a regexp its capture group names. Standard library only: `go run main.go` needs no module
// download. Used by test/support/go-syntax.ts (live comparison when Go is installed, and the
// regeneration of testdata/go-syntax/expected.json).
package main

import (
	"encoding/json"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"time"
)

type input struct {
	Durations []string `json:"durations"`
	Regexps   []string `json:"regexps"`
}

type result struct {
	OK    bool     `json:"ok"`
	Nanos string   `json:"nanos,omitempty"`
	Error string   `json:"error,omitempty"`
	Names []string `json:"names,omitempty"`
}

type output struct {
	Go        string   `json:"go"`
	Durations []result `json:"durations"`
	Regexps   []result `json:"regexps"`
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		os.Stderr.WriteString("go-syntax: " + err.Error() + "\n")
		os.Exit(2)
	}
	out := output{Go: runtime.Version(), Durations: []result{}, Regexps: []result{}}
	for _, s := range in.Durations {
		d, err := time.ParseDuration(s)
		if err != nil {
			out.Durations = append(out.Durations, result{Error: err.Error()})
		} else {
			out.Durations = append(out.Durations, result{OK: true, Nanos: strconv.FormatInt(int64(d), 10)})
		}
	}
	for _, s := range in.Regexps {
		re, err := regexp.Compile(s)
		if err != nil {
			out.Regexps = append(out.Regexps, result{Error: err.Error()})
		} else {
			out.Regexps = append(out.Regexps, result{OK: true, Names: re.SubexpNames()})
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		os.Exit(2)
	}
}

// yaml-ref decodes YAML documents the way sigs.k8s.io/yaml's Unmarshal does (go-yaml v2, then
// non-string keys stringified, then encoding/json), as a reference for the src/yaml readers' tests.
// Input on stdin: a JSON array of documents (strings). Output: a JSON array with, for each,
// {"value": <decoded JSON>} or {"error": "<message>"}. Build (Debian golang-gopkg-yaml.v2-dev):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o yaml-ref .
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"gopkg.in/yaml.v2"
)

type result struct {
	Value json.RawMessage `json:"value,omitempty"`
	Error string          `json:"error,omitempty"`
}

// jsonable mirrors sigs.k8s.io/yaml's convertToJSONableObject for an untyped target.
func jsonable(v interface{}) (interface{}, error) {
	switch t := v.(type) {
	case map[interface{}]interface{}:
		out := make(map[string]interface{}, len(t))
		for k, val := range t {
			var key string
			switch kk := k.(type) {
			case string:
				key = kk
			case int:
				key = strconv.Itoa(kk)
			case int64:
				key = strconv.FormatInt(kk, 10)
			case float64:
				key = strconv.FormatFloat(kk, 'g', -1, 32)
				switch key {
				case "+Inf":
					key = ".inf"
				case "-Inf":
					key = "-.inf"
				case "NaN":
					key = ".nan"
				}
			case bool:
				key = strconv.FormatBool(kk)
			default:
				return nil, fmt.Errorf("unsupported map key of type %T", k)
			}
			c, err := jsonable(val)
			if err != nil {
				return nil, err
			}
			out[key] = c
		}
		return out, nil
	case []interface{}:
		out := make([]interface{}, len(t))
		for i, x := range t {
			c, err := jsonable(x)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

func decode(doc string) result {
	var obj interface{}
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
		return result{Error: err.Error()}
	}
	c, err := jsonable(obj)
	if err != nil {
		return result{Error: err.Error()}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return result{Error: err.Error()}
	}
	return result{Value: b}
}

func main() {
	var docs []string
	if err := json.NewDecoder(os.Stdin).Decode(&docs); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	out := make([]result, len(docs))
	for i, d := range docs {
		out[i] = decode(d)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

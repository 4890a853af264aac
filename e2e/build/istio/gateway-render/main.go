// Command istio-gateway-render renders Istio's gateway deployment templates (kube-gateway,
// waypoint, agentgateway, agentgateway-waypoint) the way istiod's gateway deployment controller
// does: templates parsed by Istio's own pkg/kube/inject, values through inject.NewValuesConfig,
// the mesh config through mesh.ReadMeshConfig, and a data struct of the controller's shape
// (TemplateInput embedding *gateway.Gateway, inside derivedInput: the controller's types are
// unexported, so this program declares the same fields; templates see no type names). It is the
// reference that src/istio/gateway-data.ts is compared with (gateway-data.istio.test.ts).
//
//	istio-gateway-render -inject-config config.yaml -values values.json -mesh mesh.yaml < cases.json
//
// stdin: a JSON array of {"template", "gateway" (a Gateway object), "derived" (what the controller
// derives for it: DeploymentName, Ports, InfrastructureLabels, ...)}; stdout: a JSON array of
// {"output"} or {"error"}, one per case. The derivation itself is ours; this program checks the
// rendering: Istio's template functions, its types' zero values and promoted fields.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	gateway "sigs.k8s.io/gateway-api/apis/v1"

	meshapi "istio.io/api/mesh/v1alpha1"
	"istio.io/istio/pkg/config/mesh"
	"istio.io/istio/pkg/kube/inject"
)

// templateInput has gatewaycommon.TemplateInput's fields, in its order.
type templateInput struct {
	*gateway.Gateway
	GatewayClass              string
	DeploymentName            string
	ServiceAccount            string
	Ports                     []corev1.ServicePort
	ServiceType               corev1.ServiceType
	ClusterID                 string
	KubeVersion               int
	Revision                  string
	NativeSidecars            bool
	ProxyUID                  int64
	ProxyGID                  int64
	CompliancePolicy          string
	InfrastructureLabels      map[string]string
	InfrastructureAnnotations map[string]string
	GatewayNameLabel          string
	IsEastWestGateway         bool
	ControllerLabel           string
}

// derivedInput has gatewaycommon.derivedInput's fields, in its order.
type derivedInput struct {
	templateInput
	ProxyImage        string
	AgentgatewayImage string
	ProxyConfig       *meshapi.ProxyConfig
	MeshConfig        *meshapi.MeshConfig
	Values            map[string]any
}

type derived struct {
	templateInput
	ProxyImage        string
	AgentgatewayImage string
}

type renderCase struct {
	Template string          `json:"template"`
	Gateway  gateway.Gateway `json:"gateway"`
	Derived  json.RawMessage `json:"derived"`
}

type result struct {
	Output *string `json:"output,omitempty"`
	Error  string  `json:"error,omitempty"`
}

func main() {
	injectConfig := flag.String("inject-config", "", "the istio-sidecar-injector ConfigMap's config key, as a file")
	valuesFile := flag.String("values", "", "the istio-sidecar-injector ConfigMap's values key, as a file")
	meshFile := flag.String("mesh", "", "the istio ConfigMap's mesh key, as a file")
	flag.Parse()
	if *injectConfig == "" || *valuesFile == "" || *meshFile == "" {
		fail("-inject-config, -values and -mesh are required")
	}
	meshConfig, err := mesh.ReadMeshConfig(*meshFile)
	if err != nil {
		fail("reading mesh config %s: %v", *meshFile, err)
	}
	configText, err := os.ReadFile(*injectConfig)
	if err != nil {
		fail("%v", err)
	}
	cfg, err := inject.UnmarshalConfig(configText)
	if err != nil {
		fail("parsing %s: %v", *injectConfig, err)
	}
	valuesText, err := os.ReadFile(*valuesFile)
	if err != nil {
		fail("%v", err)
	}
	values, err := inject.NewValuesConfig(string(valuesText))
	if err != nil {
		fail("%v", err)
	}
	var cases []renderCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		fail("reading the cases from stdin: %v", err)
	}
	out := make([]result, 0, len(cases))
	for _, c := range cases {
		t := cfg.Templates[c.Template]
		if t == nil {
			out = append(out, result{Error: fmt.Sprintf("no %q template defined", c.Template)})
			continue
		}
		var d derived
		if err := json.Unmarshal(c.Derived, &d); err != nil {
			fail("case %s: derived: %v", c.Template, err)
		}
		gw := c.Gateway
		d.templateInput.Gateway = &gw
		input := derivedInput{
			templateInput:     d.templateInput,
			ProxyImage:        d.ProxyImage,
			AgentgatewayImage: d.AgentgatewayImage,
			// As the controller, with no ProxyConfig resources: the mesh's default proxy config.
			ProxyConfig: mesh.DefaultProxyConfig(),
			MeshConfig:  meshConfig,
			Values:      values.Map(),
		}
		if meshConfig.GetDefaultConfig() != nil {
			input.ProxyConfig = meshConfig.GetDefaultConfig()
		}
		var b bytes.Buffer
		if err := t.Execute(&b, input); err != nil {
			out = append(out, result{Error: err.Error()})
			continue
		}
		s := b.String()
		out = append(out, result{Output: &s})
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail("%v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "istio-gateway-render: "+format+"\n", args...)
	os.Exit(2)
}

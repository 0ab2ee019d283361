package main

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

var prodSecrets = Options{ExternalSecrets: []string{"a2a-inbound-engines", "a2a-inbound-linker", "a2a-inbound-secrets-key"}}

func TestOverlaysRenderAndPassEveryCheck(t *testing.T) {
	prod := prodSecrets
	prod.Production = true
	for dir, opts := range map[string]Options{"../overlays/dev": {}, "../overlays/production": prod} {
		problems, count := Validate(dir, opts, "")
		if len(problems) > 0 {
			t.Errorf("%s: %s", dir, strings.Join(problems, "\n"))
		}
		if count < 25 {
			t.Errorf("%s: only %d objects rendered", dir, count)
		}
	}
}

func TestOverlaysDifferAsDocumented(t *testing.T) {
	replicas := func(dir string) map[string]int32 {
		objs := load(t, dir)
		out := map[string]int32{}
		for _, o := range objs {
			if d, ok := o.Obj.(*appsv1.Deployment); ok {
				out[d.Name] = *d.Spec.Replicas
			}
			if s, ok := o.Obj.(*appsv1.StatefulSet); ok {
				out["statefulset/"+s.Name] = *s.Spec.Replicas
			}
		}
		return out
	}
	dev, prod := replicas("../overlays/dev"), replicas("../overlays/production")
	for _, s := range Services {
		if dev[s] != 1 {
			t.Errorf("dev %s: %d replicas, want 1", s, dev[s])
		}
		if prod[s] < 2 {
			t.Errorf("production %s: %d replicas, want at least 2", s, prod[s])
		}
	}
	for _, e := range []string{"kafka", "redis", "mongodb"} {
		if dev["statefulset/"+e] != 1 {
			t.Errorf("dev: no %s StatefulSet", e)
		}
		if _, ok := prod["statefulset/"+e]; ok {
			t.Errorf("production renders a %s StatefulSet: engines are external there", e)
		}
	}
	// Production renders no Secret: everything secret comes by reference.
	for _, o := range load(t, "../overlays/production") {
		if o.GVK.Kind == "Secret" {
			t.Errorf("production renders Secret %s", o.Name)
		}
	}
	if problems, _ := Validate("../overlays/production", Options{}, ""); !contains(problems, `Secret "a2a-inbound-engines" is neither rendered nor declared external`) {
		t.Errorf("an undeclared external Secret is not reported: %v", problems)
	}
}

func TestStrictDecodingRejectsUnknownFieldsAndKinds(t *testing.T) {
	_, errs := DecodeStrict([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: {a: b}\nspec: {}\n"))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `unknown field "spec"`) {
		t.Errorf("unknown field: %v", errs)
	}
	_, errs = DecodeStrict([]byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  replicas: two\n"))
	if len(errs) != 1 {
		t.Errorf("wrong type: %v", errs)
	}
	_, errs = DecodeStrict([]byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: first\n  name: second\n"))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `key "name" already set`) {
		t.Errorf("duplicate field: %v", errs)
	}
	_, errs = DecodeStrict([]byte("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: x\n"))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "no schema") {
		t.Errorf("unknown kind: %v", errs)
	}
	_, errs = DecodeStrict([]byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  template:\n    spec:\n      containers:\n        - name: a\n          securityContext: {readOnlyRootFs: true}\n"))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "readOnlyRootFs") {
		t.Errorf("misspelt nested field: %v", errs)
	}
}

// Each mutation of the dev overlay must produce the named violation.
func TestPoliciesCatchEachViolation(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(objs []Object)
		want   string
	}{
		{"no memory limit", func(o []Object) { delete(container(o, "gateway").Resources.Limits, corev1.ResourceMemory) }, "Deployment gateway container gateway: no memory limit"},
		{"no readiness probe", func(o []Object) { container(o, "tasks").ReadinessProbe = nil }, "Deployment tasks container tasks: no readinessProbe"},
		{"probe on an unknown port", func(o []Object) { container(o, "runner").LivenessProbe.GRPC.Port = 1 }, "Deployment runner container runner: liveness probe uses gRPC port 1"},
		{"writable root", func(o []Object) { *container(o, "webhooks").SecurityContext.ReadOnlyRootFilesystem = false }, "Deployment webhooks container webhooks: readOnlyRootFilesystem is not true"},
		{"capabilities kept", func(o []Object) { container(o, "linker").SecurityContext.Capabilities.Drop = nil }, "Deployment linker container linker: capabilities do not drop ALL"},
		{"no seccomp", func(o []Object) { deployment(o, "tasks").Spec.Template.Spec.SecurityContext.SeccompProfile = nil }, "Deployment tasks container tasks: seccompProfile is not RuntimeDefault"},
		{"root allowed", func(o []Object) { deployment(o, "tasks").Spec.Template.Spec.SecurityContext.RunAsNonRoot = nil }, "Deployment tasks container tasks: runAsNonRoot is not true"},
		{"short grace", func(o []Object) { *deployment(o, "gateway").Spec.Template.Spec.TerminationGracePeriodSeconds = 15 }, "Deployment gateway container gateway: terminationGracePeriodSeconds 15 is below"},
		{"missing ConfigMap", func(o []Object) { container(o, "gateway").EnvFrom[0].ConfigMapRef.Name = "nope" }, `envFrom ConfigMap "nope" is not rendered`},
		{"latest image", func(o []Object) { container(o, "gateway").Image = "a2a-inbound/gateway:latest" }, "needs a pinned tag"},
		{"no topology spread", func(o []Object) { deployment(o, "runner").Spec.Template.Spec.TopologySpreadConstraints = nil }, "service runner: no topologySpreadConstraints"},
		{"tasks open to the linker", func(o []Object) {
			p := policy(o, "tasks-grpc-from-callers")
			p.Spec.Ingress[0].From[0].PodSelector.MatchExpressions[0].Values = append(p.Spec.Ingress[0].From[0].PodSelector.MatchExpressions[0].Values, "linker")
		}, "NetworkPolicy: linker must not reach tasks"},
		{"webhooks closed to the gateway", func(o []Object) {
			policy(o, "webhooks-grpc-from-gateway").Spec.Ingress[0].From[0].PodSelector.MatchLabels = map[string]string{"app.kubernetes.io/name": "runner"}
		}, "NetworkPolicy: gateway must reach webhooks"},
		{"no default deny", func(o []Object) {
			// Without the default deny, the runner is open: only the metrics policy (narrowed here) selects it.
			deny := policy(o, "default-deny-ingress")
			deny.Spec.PodSelector.MatchLabels = map[string]string{"app.kubernetes.io/name": "nothing"}
			policy(o, "metrics-from-monitoring").Spec.PodSelector.MatchLabels = map[string]string{"app.kubernetes.io/name": "gateway"}
		}, "NetworkPolicy: an unlabelled pod of the namespace must not reach runner"},
		{"egress to private ranges", func(o []Object) { policy(o, "runner-webhooks-egress").Spec.Egress[0].To[0].IPBlock.Except = nil }, "NetworkPolicy: runner must not reach the private address 10.0.0.10:443"},
		{"gateway closed to the ingress", func(o []Object) { policy(o, "gateway-from-ingress").Spec.Ingress[0].Ports[0].Port.StrVal = "metrics" }, "NetworkPolicy: the ingress controller must reach gateway"},
		{"metrics open to the ingress", func(o []Object) {
			policy(o, "metrics-from-monitoring").Spec.Ingress[0].From[0].NamespaceSelector.MatchLabels = map[string]string{"kubernetes.io/metadata.name": "ingress-nginx"}
		}, "NetworkPolicy: the ingress controller must not reach gateway metrics on port 9464"},
		{"SSE buffered", func(o []Object) { ingress(o).Annotations["nginx.ingress.kubernetes.io/proxy-buffering"] = "on" }, "proxy-buffering must be off"},
		{"small bodies", func(o []Object) { ingress(o).Annotations["nginx.ingress.kubernetes.io/proxy-body-size"] = "1m" }, "proxy-body-size must allow 25 MB"},
		{"ingress below the gateway's body limit", func(o []Object) {
			ingress(o).Annotations["nginx.ingress.kubernetes.io/proxy-body-size"] = "25m"
			for i, e := range container(o, "gateway").Env {
				if e.Name == "BODY_LIMIT_BYTES" {
					container(o, "gateway").Env[i].Value = "30000000"
				}
			}
		}, "proxy-body-size (26214400 bytes) is below the gateway's BODY_LIMIT_BYTES 30000000"},
		{"gateway body limit left at its default", func(o []Object) {
			c := container(o, "gateway")
			env := c.Env[:0]
			for _, e := range c.Env {
				if e.Name != "BODY_LIMIT_BYTES" {
					env = append(env, e)
				}
			}
			c.Env = env
		}, "Deployment gateway: BODY_LIMIT_BYTES must be set"},
		{"no preStop delay", func(o []Object) { container(o, "webhooks").Lifecycle = nil }, "service webhooks: container webhooks has no preStop delay"},
		{"linker grace below its ingest budget", func(o []Object) { *deployment(o, "linker").Spec.Template.Spec.TerminationGracePeriodSeconds = 30 }, "Deployment linker container linker: terminationGracePeriodSeconds 30 is below preStop + shutdown budgets + 5 s (55000 ms)"},
		{"no secrets key in the runner", func(o []Object) {
			c := container(o, "runner")
			env := c.Env[:0]
			for _, e := range c.Env {
				if e.Name != "SECRETS_KEY" {
					env = append(env, e)
				}
			}
			c.Env = env
		}, "Deployment runner: SECRETS_KEY is not set"},
		{"secrets key as a literal", func(o []Object) {
			for i, e := range container(o, "tasks").Env {
				if e.Name == "SECRETS_KEY" {
					container(o, "tasks").Env[i] = corev1.EnvVar{Name: "SECRETS_KEY", Value: "not-a-secret"}
				}
			}
		}, "Deployment tasks: SECRETS_KEY must come from a Secret"},
		{"linker token from another Secret", func(o []Object) {
			for _, e := range container(o, "linker").Env {
				if e.Name == "LINKER_SERVICE_TOKEN" {
					e.ValueFrom.SecretKeyRef.Name = "a2a-inbound-engines"
				}
			}
		}, "Deployment linker: LINKER_SERVICE_TOKEN comes from Secret a2a-inbound-engines key LINKER_SERVICE_TOKEN, but gateway reads Secret a2a-inbound-linker"},
		{"public URL on another host", func(o []Object) {
			for _, x := range o {
				if cm, ok := x.Obj.(*corev1.ConfigMap); ok && strings.HasPrefix(cm.Name, "a2a-inbound-config") {
					cm.Data["PUBLIC_BASE_URL"] = "https://a2a.other.example"
				}
			}
		}, "Ingress gateway: serves no rule for a2a.other.example"},
		{"gRPC port without its container port", func(o []Object) {
			ports := container(o, "gateway").Ports
			for i := range ports {
				if ports[i].Name == "a2a-grpc" {
					ports[i].ContainerPort = 50099
				}
			}
		}, "Deployment gateway: A2A_GRPC_PORT 50056 is not its container port named a2a-grpc"},
		{"gRPC public address on another host", func(o []Object) {
			for _, x := range o {
				if cm, ok := x.Obj.(*corev1.ConfigMap); ok && strings.HasPrefix(cm.Name, "a2a-inbound-config") {
					cm.Data["A2A_GRPC_PUBLIC_ADDR"] = "grpc.other.example:443"
				}
			}
		}, "Ingress gateway-grpc: serves no rule for grpc.other.example"},
		{"gRPC Ingress to the HTTP port", func(o []Object) {
			for _, x := range o {
				if in, ok := x.Obj.(*networkingv1.Ingress); ok && in.Name == "gateway-grpc" {
					in.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Port.Name = "http"
				}
			}
		}, "Ingress gateway-grpc: a gRPC Ingress (backend-protocol GRPC) leads to the Service port a2a-grpc"},
		{"more runners than partitions", func(o []Object) {
			for _, x := range o {
				if h, ok := x.Obj.(*autoscalingv2.HorizontalPodAutoscaler); ok && h.Name == "runner" {
					h.Spec.MaxReplicas = 4
				}
			}
		}, "Deployment runner: HorizontalPodAutoscaler maxReplicas 4 exceed KAFKA_TOPIC_PARTITIONS 3"},
		{"more webhooks replicas than partitions", func(o []Object) {
			n := int32(5)
			deployment(o, "webhooks").Spec.Replicas = &n
		}, "Deployment webhooks: replicas 5 exceed KAFKA_TOPIC_PARTITIONS 3"},
		{"Service selects nothing", func(o []Object) {
			service(o, "linker").Spec.Selector = map[string]string{"app.kubernetes.io/name": "linkr"}
		}, "Service linker: selector"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs := load(t, "../overlays/dev")
			c.mutate(objs)
			problems := Check(objs, Options{})
			if !contains(problems, c.want) {
				t.Errorf("want a problem containing %q, got %v", c.want, problems)
			}
		})
	}
}

func load(t *testing.T, dir string) []Object {
	t.Helper()
	yml, err := Render(dir)
	if err != nil {
		t.Fatal(err)
	}
	objs, errs := DecodeStrict(yml)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return objs
}

func contains(problems []string, want string) bool {
	for _, p := range problems {
		if strings.Contains(p, want) {
			return true
		}
	}
	return false
}

func deployment(objs []Object, name string) *appsv1.Deployment {
	for _, o := range objs {
		if d, ok := o.Obj.(*appsv1.Deployment); ok && d.Name == name {
			return d
		}
	}
	panic("no Deployment " + name)
}

func container(objs []Object, name string) *corev1.Container {
	return &deployment(objs, name).Spec.Template.Spec.Containers[0]
}

func service(objs []Object, name string) *corev1.Service {
	for _, o := range objs {
		if s, ok := o.Obj.(*corev1.Service); ok && s.Name == name {
			return s
		}
	}
	panic("no Service " + name)
}

func policy(objs []Object, name string) *networkingv1.NetworkPolicy {
	for _, o := range objs {
		if p, ok := o.Obj.(*networkingv1.NetworkPolicy); ok && p.Name == name {
			return p
		}
	}
	panic("no NetworkPolicy " + name)
}

func ingress(objs []Object) *networkingv1.Ingress {
	for _, o := range objs {
		if i, ok := o.Obj.(*networkingv1.Ingress); ok {
			return i
		}
	}
	panic("no Ingress")
}

// The rendered ConfigMap every service reads (its name has kustomize's hash suffix).
func sharedConfig(objs []Object) *corev1.ConfigMap {
	for _, o := range objs {
		if cm, ok := o.Obj.(*corev1.ConfigMap); ok && strings.HasPrefix(cm.Name, "a2a-inbound-config") {
			return cm
		}
	}
	return nil
}

func TestTransportPolicyRefusesPlaintextInProduction(t *testing.T) {
	prod := prodSecrets
	prod.Production = true
	cases := []struct {
		name   string
		dir    string
		opts   Options
		mutate func(objs []Object)
		want   []string
	}{
		{"no GRPC_TLS_* files", "../overlays/production", prod, func(objs []Object) {
			delete(sharedConfig(objs).Data, "GRPC_TLS_CA_FILE")
		}, []string{
			"Deployment gateway container gateway: plaintext gRPC in production",
			"Deployment tasks container tasks: plaintext gRPC in production",
			"Deployment runner container runner: plaintext gRPC in production",
			"Deployment webhooks container webhooks: plaintext gRPC in production",
			"Deployment linker container linker: plaintext gRPC in production",
		}},
		{"Kafka without TLS", "../overlays/production", prod, func(objs []Object) {
			delete(sharedConfig(objs).Data, "KAFKA_TLS")
		}, []string{
			"Deployment tasks container tasks: plaintext Kafka in production: set KAFKA_TLS=true",
			"Deployment runner container runner: plaintext Kafka in production",
			"Deployment webhooks container webhooks: plaintext Kafka in production",
		}},
		{"an opt-out in the production overlay", "../overlays/production", prod, func(objs []Object) {
			sharedConfig(objs).Data["ALLOW_PLAINTEXT_LINKS"] = "kafka"
		}, []string{"Deployment tasks container tasks: ALLOW_PLAINTEXT_LINKS=kafka: the production overlay accepts no plaintext link"}},
		{"a grpc probe on the TLS port", "../overlays/production", prod, func(objs []Object) {
			container(objs, "tasks").ReadinessProbe.GRPC.Port = 50051
		}, []string{"Deployment tasks container tasks: readiness probe: grpc port 50051, but TASKS_GRPC_PORT=50051 speaks TLS"}},
		{"another service's certificate mounted", "../overlays/production", prod, func(objs []Object) {
			for _, v := range deployment(objs, "tasks").Spec.Template.Spec.Volumes {
				if v.Secret != nil && v.Secret.SecretName == "tasks-grpc-tls" {
					v.Secret.SecretName = "gateway-grpc-tls"
				}
			}
		}, []string{`Deployment tasks container tasks: Certificate gateway-grpc has common name "gateway": the servers identify this service by "tasks"`}},
		{"a Secret no Certificate writes", "../overlays/production", prod, func(objs []Object) {
			for _, v := range deployment(objs, "runner").Spec.Template.Spec.Volumes {
				if v.Secret != nil && v.Secret.SecretName == "runner-grpc-tls" {
					v.Secret.SecretName = "hand-made-tls"
				}
			}
		}, []string{`Deployment runner container runner: Secret "hand-made-tls" of the GRPC_TLS_* files is written by no rendered cert-manager Certificate`}},
		{"dev without its opt-out: the rendered engine URLs are plaintext", "../overlays/dev", Options{}, func(objs []Object) {
			delete(sharedConfig(objs).Data, "ALLOW_PLAINTEXT_LINKS")
		}, []string{
			"Deployment tasks container tasks: plaintext gRPC in production",
			"Deployment tasks container tasks: plaintext Kafka in production",
			"Deployment tasks container tasks: plaintext Redis in production: REDIS_URL redis://redis-0.redis:6379 must be rediss://",
			"Deployment tasks container tasks: plaintext MongoDB in production: MONGO_URL mongodb://mongodb-0.mongodb:27017 must carry tls=true",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs := load(t, c.dir)
			if got := Check(objs, c.opts); len(got) != 0 {
				t.Fatalf("%s is not valid before the change: %v", c.dir, got)
			}
			c.mutate(objs)
			got := Check(objs, c.opts)
			for _, w := range c.want {
				if !contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, strings.Join(got, "\n"))
				}
			}
		})
	}
}

func TestCertManagerKindsDecodeStrictly(t *testing.T) {
	doc := "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: x\nspec:\n  secretName: s\n  comonName: typo\n  issuerRef: {name: i}\n"
	if _, errs := DecodeStrict([]byte(doc)); len(errs) != 1 || !strings.Contains(errs[0].Error(), "comonName") {
		t.Errorf("a misspelt Certificate field is not refused: %v", errs)
	}
	if _, errs := DecodeStrict([]byte("apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata:\n  name: x\nspec: {}\n")); len(errs) != 1 {
		t.Errorf("an unmodelled cert-manager kind passes unchecked: %v", errs)
	}
}

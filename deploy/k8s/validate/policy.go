package main

import (
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Services are the five a2a-inbound services: each needs a Deployment, a Service, a ServiceAccount and a
// PodDisruptionBudget of that name.
var Services = []string{"gateway", "tasks", "runner", "webhooks", "linker"}

// Autoscaled services have a HorizontalPodAutoscaler.
var Autoscaled = []string{"gateway", "runner"}

// SharedSecrets are settings that several services must read from one Secret key (a value they must agree
// on), by reference: name → the services. Optional ones (a rotation's previous keys) may be marked optional.
var SharedSecrets = map[string][]string{
	// Seals the subscriptions' secrets in tasks, opens them in the runner (ADR 0020).
	"SECRETS_KEY":          {"tasks", "runner"},
	"SECRETS_KEY_PREVIOUS": {"tasks", "runner"},
	// The internal service credential the gateway presents and the linker checks (ADR 0012).
	"LINKER_SERVICE_TOKEN": {"gateway", "linker"},
}

// Options of one check run.
type Options struct {
	// ExternalSecrets may be referenced without being rendered (created out of band in production).
	ExternalSecrets []string
	// Production refuses every plaintext gRPC and engine link, ALLOW_PLAINTEXT_LINKS included (ADR 0035).
	Production bool
}

type workload struct {
	kind, name string
	labels     map[string]string
	spec       corev1.PodSpec
}

// Index is the rendered objects by kind.
type Index struct {
	workloads  []workload
	services   map[string]*corev1.Service
	accounts   map[string]bool
	configMaps map[string]*corev1.ConfigMap
	secrets    map[string]bool
	// secretData holds the rendered Secrets' values (dev renders its engine URLs; production renders none).
	secretData   map[string]map[string]string
	certificates map[string]*Certificate
	issuers      map[string]*Issuer
	pdbs         []*policyv1.PodDisruptionBudget
	hpas         []*autoscalingv2.HorizontalPodAutoscaler
	policies     []*networkingv1.NetworkPolicy
	ingresses    []*networkingv1.Ingress
	// replicas of each Deployment, by name.
	replicas map[string]*int32
}

func index(objs []Object) *Index {
	ix := &Index{services: map[string]*corev1.Service{}, accounts: map[string]bool{},
		configMaps: map[string]*corev1.ConfigMap{}, secrets: map[string]bool{}, replicas: map[string]*int32{},
		secretData: map[string]map[string]string{}, certificates: map[string]*Certificate{}, issuers: map[string]*Issuer{}}
	for _, o := range objs {
		switch v := o.Obj.(type) {
		case *appsv1.Deployment:
			ix.workloads = append(ix.workloads, workload{"Deployment", v.Name, v.Spec.Template.Labels, v.Spec.Template.Spec})
			ix.replicas[v.Name] = v.Spec.Replicas
		case *appsv1.StatefulSet:
			ix.workloads = append(ix.workloads, workload{"StatefulSet", v.Name, v.Spec.Template.Labels, v.Spec.Template.Spec})
		case *appsv1.DaemonSet:
			ix.workloads = append(ix.workloads, workload{"DaemonSet", v.Name, v.Spec.Template.Labels, v.Spec.Template.Spec})
		case *corev1.Service:
			ix.services[v.Name] = v
		case *corev1.ServiceAccount:
			ix.accounts[v.Name] = true
		case *corev1.ConfigMap:
			ix.configMaps[v.Name] = v
		case *corev1.Secret:
			ix.secrets[v.Name] = true
			data := map[string]string{}
			for k, b := range v.Data {
				data[k] = string(b)
			}
			for k, val := range v.StringData {
				data[k] = val
			}
			ix.secretData[v.Name] = data
		case *Certificate:
			ix.certificates[v.Name] = v
		case *Issuer:
			ix.issuers[v.Name] = v
		case *policyv1.PodDisruptionBudget:
			ix.pdbs = append(ix.pdbs, v)
		case *autoscalingv2.HorizontalPodAutoscaler:
			ix.hpas = append(ix.hpas, v)
		case *networkingv1.NetworkPolicy:
			ix.policies = append(ix.policies, v)
		case *networkingv1.Ingress:
			ix.ingresses = append(ix.ingresses, v)
		}
	}
	return ix
}

func (ix *Index) workload(kind, name string) *workload {
	for i := range ix.workloads {
		if ix.workloads[i].kind == kind && ix.workloads[i].name == name {
			return &ix.workloads[i]
		}
	}
	return nil
}

// Check runs every policy over the rendered objects and returns the violations, sorted.
func Check(objs []Object, opts Options) []string {
	ix := index(objs)
	var v []string
	add := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }
	for _, w := range ix.workloads {
		checkWorkload(ix, w, opts, add)
	}
	checkRequired(ix, add)
	checkSharedSecrets(ix, add)
	checkPartitions(ix, add)
	checkSelectors(ix, add)
	checkIngress(ix, add)
	checkNetwork(ix, add)
	checkTransport(ix, opts, add)
	sort.Strings(v)
	return v
}

// Probes, requests and limits, the restricted securityContext, resolvable references, and a grace period
// that covers the preStop delay plus the service's own shutdown budget.
func checkWorkload(ix *Index, w workload, opts Options, add func(string, ...any)) {
	at := w.kind + " " + w.name
	ps := w.spec
	if ps.AutomountServiceAccountToken == nil || *ps.AutomountServiceAccountToken {
		add("%s: automountServiceAccountToken must be false", at)
	}
	if ps.ServiceAccountName == "" || !ix.accounts[ps.ServiceAccountName] {
		add("%s: serviceAccountName %q is not a rendered ServiceAccount", at, ps.ServiceAccountName)
	}
	podSC := ps.SecurityContext
	podNonRoot := podSC != nil && podSC.RunAsNonRoot != nil && *podSC.RunAsNonRoot
	podSeccomp := podSC != nil && podSC.SeccompProfile != nil && podSC.SeccompProfile.Type == corev1.SeccompProfileTypeRuntimeDefault
	if len(ps.Containers) == 0 {
		add("%s: no containers", at)
	}
	for _, c := range append(append([]corev1.Container{}, ps.InitContainers...), ps.Containers...) {
		cat := fmt.Sprintf("%s container %s", at, c.Name)
		isInit := false
		for _, ic := range ps.InitContainers {
			isInit = isInit || ic.Name == c.Name
		}
		if !strings.Contains(c.Image, ":") || strings.HasSuffix(c.Image, ":latest") {
			add("%s: image %q needs a pinned tag", cat, c.Image)
		}
		if !isInit {
			if c.LivenessProbe == nil {
				add("%s: no livenessProbe", cat)
			}
			if c.ReadinessProbe == nil {
				add("%s: no readinessProbe", cat)
			}
			for name, p := range map[string]*corev1.Probe{"startup": c.StartupProbe, "liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
				if p != nil {
					checkProbePort(c, p, func(msg string) { add("%s: %s probe %s", cat, name, msg) })
				}
			}
		}
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, hasReq := c.Resources.Requests[r]
			lim, hasLim := c.Resources.Limits[r]
			if !hasReq {
				add("%s: no %s request", cat, r)
			}
			if !hasLim {
				add("%s: no %s limit", cat, r)
			}
			if hasReq && hasLim && req.Cmp(lim) > 0 {
				add("%s: %s request %s above its limit %s", cat, r, req.String(), lim.String())
			}
		}
		sc := c.SecurityContext
		if sc == nil {
			add("%s: no securityContext", cat)
			continue
		}
		if !(podNonRoot || (sc.RunAsNonRoot != nil && *sc.RunAsNonRoot)) {
			add("%s: runAsNonRoot is not true", cat)
		}
		if sc.RunAsUser != nil && *sc.RunAsUser == 0 {
			add("%s: runs as uid 0", cat)
		}
		if !(podSeccomp || (sc.SeccompProfile != nil && sc.SeccompProfile.Type == corev1.SeccompProfileTypeRuntimeDefault)) {
			add("%s: seccompProfile is not RuntimeDefault", cat)
		}
		if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			add("%s: readOnlyRootFilesystem is not true", cat)
		}
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			add("%s: allowPrivilegeEscalation is not false", cat)
		}
		if sc.Privileged != nil && *sc.Privileged {
			add("%s: privileged", cat)
		}
		dropsAll := false
		if sc.Capabilities != nil {
			for _, d := range sc.Capabilities.Drop {
				dropsAll = dropsAll || d == "ALL"
			}
			if len(sc.Capabilities.Add) > 0 {
				add("%s: adds capabilities %v", cat, sc.Capabilities.Add)
			}
		}
		if !dropsAll {
			add("%s: capabilities do not drop ALL", cat)
		}
		env := checkEnvRefs(ix, c, opts, func(msg string) { add("%s: %s", cat, msg) })
		if !isInit {
			checkGrace(ps, c, env, func(msg string) { add("%s: %s", cat, msg) })
		}
	}
}

func checkProbePort(c corev1.Container, p *corev1.Probe, bad func(string)) {
	named := func(port string) bool {
		for _, cp := range c.Ports {
			if cp.Name == port {
				return true
			}
		}
		return false
	}
	numbered := func(port int32) bool {
		for _, cp := range c.Ports {
			if cp.ContainerPort == port {
				return true
			}
		}
		return false
	}
	switch {
	case p.HTTPGet != nil:
		if p.HTTPGet.Port.StrVal != "" && !named(p.HTTPGet.Port.StrVal) {
			bad(fmt.Sprintf("uses port %q that the container does not name", p.HTTPGet.Port.StrVal))
		}
	case p.TCPSocket != nil:
		if p.TCPSocket.Port.StrVal != "" && !named(p.TCPSocket.Port.StrVal) {
			bad(fmt.Sprintf("uses port %q that the container does not name", p.TCPSocket.Port.StrVal))
		}
	case p.GRPC != nil:
		if !numbered(p.GRPC.Port) {
			bad(fmt.Sprintf("uses gRPC port %d that the container does not expose", p.GRPC.Port))
		}
	case p.Exec != nil:
		if len(p.Exec.Command) == 0 {
			bad("has an empty exec command")
		}
	default:
		bad("has no handler")
	}
}

// checkEnvRefs resolves every ConfigMap and Secret the container reads; returns the literal environment it
// sees (ConfigMaps and values; secrets are not read).
func checkEnvRefs(ix *Index, c corev1.Container, opts Options, bad func(string)) map[string]string {
	env := map[string]string{}
	secretOK := func(name string) bool {
		if ix.secrets[name] {
			return true
		}
		for _, s := range opts.ExternalSecrets {
			if s == name {
				return true
			}
		}
		return false
	}
	for _, from := range c.EnvFrom {
		if from.ConfigMapRef != nil {
			cm := ix.configMaps[from.ConfigMapRef.Name]
			if cm == nil {
				bad(fmt.Sprintf("envFrom ConfigMap %q is not rendered", from.ConfigMapRef.Name))
				continue
			}
			for k, val := range cm.Data {
				env[k] = val
			}
		}
		if from.SecretRef != nil && !secretOK(from.SecretRef.Name) {
			bad(fmt.Sprintf("envFrom Secret %q is neither rendered nor declared external", from.SecretRef.Name))
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
			continue
		}
		if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
			cm := ix.configMaps[r.Name]
			if cm == nil {
				bad(fmt.Sprintf("env %s: ConfigMap %q is not rendered", e.Name, r.Name))
			} else if val, ok := cm.Data[r.Key]; !ok {
				bad(fmt.Sprintf("env %s: ConfigMap %q has no key %q", e.Name, r.Name, r.Key))
			} else {
				env[e.Name] = val
			}
		}
		if r := e.ValueFrom.SecretKeyRef; r != nil && !secretOK(r.Name) {
			bad(fmt.Sprintf("env %s: Secret %q is neither rendered nor declared external", e.Name, r.Name))
		}
	}
	return env
}

// The pod's grace period must cover the preStop sleep plus every shutdown budget the container is given
// (`SHUTDOWN_READINESS_DELAY_MS`, `*_GRACE_MS`), with 5 s to spare for closing the engines.
func checkGrace(ps corev1.PodSpec, c corev1.Container, env map[string]string, bad func(string)) {
	grace := int64(30)
	if ps.TerminationGracePeriodSeconds != nil {
		grace = *ps.TerminationGracePeriodSeconds
	}
	needMs := int64(5000)
	if c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Sleep != nil {
		needMs += c.Lifecycle.PreStop.Sleep.Seconds * 1000
	}
	for k, val := range env {
		if k == "SHUTDOWN_READINESS_DELAY_MS" || strings.HasSuffix(k, "_GRACE_MS") {
			ms, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				bad(fmt.Sprintf("%s=%q is not a number", k, val))
				continue
			}
			needMs += ms
		}
	}
	if grace*1000 < needMs {
		bad(fmt.Sprintf("terminationGracePeriodSeconds %d is below preStop + shutdown budgets + 5 s (%d ms)", grace, needMs))
	}
}

func checkRequired(ix *Index, add func(string, ...any)) {
	for _, s := range Services {
		if ix.workload("Deployment", s) == nil {
			add("service %s: no Deployment", s)
		}
		if ix.services[s] == nil {
			add("service %s: no Service", s)
		}
		if !ix.accounts[s] {
			add("service %s: no ServiceAccount", s)
		}
		hasPDB := false
		for _, p := range ix.pdbs {
			hasPDB = hasPDB || p.Name == s
		}
		if !hasPDB {
			add("service %s: no PodDisruptionBudget", s)
		}
		if w := ix.workload("Deployment", s); w != nil && len(w.spec.TopologySpreadConstraints) == 0 {
			add("service %s: no topologySpreadConstraints", s)
		}
		// Behind a Service, a pod keeps receiving new connections until every node has removed its endpoint:
		// it must not stop listening before that (a preStop delay, which the grace period then covers).
		if w := ix.workload("Deployment", s); w != nil && ix.services[s] != nil {
			for _, c := range w.spec.Containers {
				ps := c.Lifecycle
				if ps == nil || ps.PreStop == nil || (ps.PreStop.Sleep == nil && ps.PreStop.Exec == nil) {
					add("service %s: container %s has no preStop delay (endpoints are removed while it stops)", s, c.Name)
				} else if ps.PreStop.Sleep != nil && ps.PreStop.Sleep.Seconds < 3 {
					add("service %s: container %s preStop sleeps %d s, less than the 3 s endpoints take to go", s, c.Name, ps.PreStop.Sleep.Seconds)
				}
			}
		}
	}
	for _, s := range Autoscaled {
		found := false
		for _, h := range ix.hpas {
			if h.Spec.ScaleTargetRef.Kind == "Deployment" && h.Spec.ScaleTargetRef.Name == s {
				found = true
			}
		}
		if !found {
			add("service %s: no HorizontalPodAutoscaler", s)
		}
	}
}

// Every selector selects something, and every target exists.
func checkSelectors(ix *Index, add func(string, ...any)) {
	selects := func(sel map[string]string) []workload {
		var out []workload
		for _, w := range ix.workloads {
			if len(sel) > 0 && labels.SelectorFromSet(sel).Matches(labels.Set(w.labels)) {
				out = append(out, w)
			}
		}
		return out
	}
	for name, s := range ix.services {
		targets := selects(s.Spec.Selector)
		if len(targets) == 0 {
			add("Service %s: selector %v selects no workload", name, s.Spec.Selector)
			continue
		}
		for _, p := range s.Spec.Ports {
			if p.TargetPort.StrVal == "" {
				continue
			}
			for _, w := range targets {
				found := false
				for _, c := range w.spec.Containers {
					for _, cp := range c.Ports {
						found = found || cp.Name == p.TargetPort.StrVal
					}
				}
				if !found {
					add("Service %s: targetPort %q is not a port of %s %s", name, p.TargetPort.StrVal, w.kind, w.name)
				}
			}
		}
	}
	for _, p := range ix.pdbs {
		if p.Spec.Selector == nil || len(selects(p.Spec.Selector.MatchLabels)) == 0 {
			add("PodDisruptionBudget %s: selects no workload", p.Name)
		}
	}
	for _, h := range ix.hpas {
		t := h.Spec.ScaleTargetRef
		if ix.workload(t.Kind, t.Name) == nil {
			add("HorizontalPodAutoscaler %s: target %s %s is not rendered", h.Name, t.Kind, t.Name)
		}
		if h.Spec.MinReplicas != nil && *h.Spec.MinReplicas > h.Spec.MaxReplicas {
			add("HorizontalPodAutoscaler %s: minReplicas above maxReplicas", h.Name)
		}
	}
}

// The gateway's Ingresses fit SSE and 25 MB bodies (ingress-nginx annotations). A gRPC Ingress (backend-protocol
// GRPC) serves the A2A 1.0 gRPC port: its host is A2A_GRPC_PUBLIC_ADDR's, over TLS, and it needs no
// proxy-buffering annotation (ingress-nginx streams gRPC unbuffered).
func checkIngress(ix *Index, add func(string, ...any)) {
	if len(ix.ingresses) == 0 {
		add("no Ingress for the gateway")
	}
	grpcPort := gatewayGrpcPort(ix, add)
	grpcIngresses := 0
	for _, in := range ix.ingresses {
		a := in.Annotations
		isGrpc := a["nginx.ingress.kubernetes.io/backend-protocol"] == "GRPC"
		if isGrpc {
			grpcIngresses++
			checkGrpcIngress(ix, in, grpcPort, add)
		}
		ingressMax, err := nginxSize(a["nginx.ingress.kubernetes.io/proxy-body-size"])
		if err != nil || ingressMax < 25_000_000 {
			add("Ingress %s: proxy-body-size must allow 25 MB bodies", in.Name)
		}
		// The gateway's own limit: at least 25 MB, and not above the Ingress's, so that the gateway (not the
		// ingress controller) answers an oversized body, with a JSON-RPC error; unset, it is 280 MiB.
		if gw := ix.workload("Deployment", "gateway"); gw != nil && len(gw.spec.Containers) > 0 {
			limit := int64(-1)
			for _, e := range gw.spec.Containers[0].Env {
				if e.Name == "BODY_LIMIT_BYTES" && e.ValueFrom == nil {
					limit, _ = strconv.ParseInt(e.Value, 10, 64)
				}
			}
			switch {
			case limit < 0:
				add("Deployment gateway: BODY_LIMIT_BYTES must be set (its default, 280 MiB, is above the Ingress's and the memory limit's reach)")
			case limit < 25_000_000:
				add("Deployment gateway: BODY_LIMIT_BYTES %d is below 25 MB", limit)
			case err == nil && limit > ingressMax:
				add("Ingress %s: proxy-body-size (%d bytes) is below the gateway's BODY_LIMIT_BYTES %d: the ingress controller would refuse bodies the gateway accepts", in.Name, ingressMax, limit)
			}
		}
		if !isGrpc && a["nginx.ingress.kubernetes.io/proxy-buffering"] != "off" {
			add("Ingress %s: proxy-buffering must be off (SSE)", in.Name)
		}
		for _, k := range []string{"proxy-read-timeout", "proxy-send-timeout"} {
			if n, err := strconv.Atoi(a["nginx.ingress.kubernetes.io/"+k]); err != nil || n < 600 {
				add("Ingress %s: %s must be at least 600 s (SSE)", in.Name, k)
			}
		}
		// Agent cards and push URLs carry PUBLIC_BASE_URL: it must name a host this Ingress serves, over TLS.
		if gw := ix.workload("Deployment", "gateway"); gw != nil && len(gw.spec.Containers) > 0 && !isGrpc {
			env := checkEnvRefs(ix, gw.spec.Containers[0], Options{}, func(string) {})
			if public := env["PUBLIC_BASE_URL"]; public != "" {
				u, err := url.Parse(public)
				served, tls := false, false
				for _, r := range in.Spec.Rules {
					served = served || (err == nil && r.Host == u.Hostname())
				}
				for _, t := range in.Spec.TLS {
					for _, h := range t.Hosts {
						tls = tls || (err == nil && h == u.Hostname())
					}
				}
				switch {
				case err != nil || u.Hostname() == "":
					add("Deployment gateway: PUBLIC_BASE_URL %q is not a URL", public)
				case !served:
					add("Ingress %s: serves no rule for %s, the host of the gateway's PUBLIC_BASE_URL", in.Name, u.Hostname())
				case tls && u.Scheme != "https":
					add("Deployment gateway: PUBLIC_BASE_URL %q must be https (the Ingress terminates TLS for %s)", public, u.Hostname())
				}
			}
		}
		for _, r := range in.Spec.Rules {
			if r.HTTP == nil {
				continue
			}
			for _, p := range r.HTTP.Paths {
				if p.Backend.Service == nil || p.Backend.Service.Name != "gateway" {
					add("Ingress %s: a path leads elsewhere than the gateway", in.Name)
				} else if ix.services["gateway"] == nil {
					add("Ingress %s: Service gateway is not rendered", in.Name)
				} else if isGrpc != (p.Backend.Service.Port.Name == "a2a-grpc") {
					add("Ingress %s: a gRPC Ingress (backend-protocol GRPC) leads to the Service port a2a-grpc, and only it does", in.Name)
				}
			}
		}
	}
	if grpcPort > 0 && grpcIngresses == 0 {
		add("Deployment gateway: A2A_GRPC_PORT %d is served but no Ingress (backend-protocol GRPC) leads to it", grpcPort)
	}
}

// The gateway's A2A 1.0 gRPC port (A2A_GRPC_PORT; 0 when off), which must be its container port named a2a-grpc.
func gatewayGrpcPort(ix *Index, add func(string, ...any)) int32 {
	gw := ix.workload("Deployment", "gateway")
	if gw == nil || len(gw.spec.Containers) == 0 {
		return 0
	}
	env := checkEnvRefs(ix, gw.spec.Containers[0], Options{}, func(string) {})
	n, err := strconv.Atoi(env["A2A_GRPC_PORT"])
	if err != nil || n <= 0 {
		return 0
	}
	for _, p := range gw.spec.Containers[0].Ports {
		if p.Name == "a2a-grpc" && p.ContainerPort == int32(n) {
			return int32(n)
		}
	}
	add("Deployment gateway: A2A_GRPC_PORT %d is not its container port named a2a-grpc", n)
	return int32(n)
}

// The cards give gRPC clients A2A_GRPC_PUBLIC_ADDR: the gRPC Ingress must serve that host, over TLS, on 443.
func checkGrpcIngress(ix *Index, in *networkingv1.Ingress, grpcPort int32, add func(string, ...any)) {
	if grpcPort == 0 {
		add("Ingress %s: leads to the gateway's gRPC port, but A2A_GRPC_PORT is not set", in.Name)
	}
	gw := ix.workload("Deployment", "gateway")
	if gw == nil || len(gw.spec.Containers) == 0 {
		return
	}
	addr := checkEnvRefs(ix, gw.spec.Containers[0], Options{}, func(string) {})["A2A_GRPC_PUBLIC_ADDR"]
	if addr == "" {
		return // the cards name the HTTP host and the bound port: a dev cluster without the gRPC host
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		add("Deployment gateway: A2A_GRPC_PUBLIC_ADDR %q is not host:port", addr)
		return
	}
	served, tls := false, false
	for _, r := range in.Spec.Rules {
		served = served || r.Host == host
	}
	for _, t := range in.Spec.TLS {
		for _, h := range t.Hosts {
			tls = tls || h == host
		}
	}
	switch {
	case !served:
		add("Ingress %s: serves no rule for %s, the host of the gateway's A2A_GRPC_PUBLIC_ADDR", in.Name, host)
	case !tls || port != "443":
		add("Ingress %s: A2A_GRPC_PUBLIC_ADDR %q must be %s:443 with TLS for that host (the Ingress terminates it)", in.Name, addr, host)
	}
}

// Each shared setting comes from a secretKeyRef, and every service that needs it reads the same Secret key.
func checkSharedSecrets(ix *Index, add func(string, ...any)) {
	names := make([]string, 0, len(SharedSecrets))
	for n := range SharedSecrets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, env := range names {
		var first *corev1.SecretKeySelector
		firstOf := ""
		for _, s := range SharedSecrets[env] {
			w := ix.workload("Deployment", s)
			if w == nil || len(w.spec.Containers) == 0 {
				continue // reported by checkRequired
			}
			var ref *corev1.SecretKeySelector
			found := false
			for _, e := range w.spec.Containers[0].Env {
				if e.Name != env {
					continue
				}
				found = true
				if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
					ref = e.ValueFrom.SecretKeyRef
				}
			}
			switch {
			case !found:
				add("Deployment %s: %s is not set (it must come from the Secret the others read: %v)", s, env, SharedSecrets[env])
			case ref == nil:
				add("Deployment %s: %s must come from a Secret (secretKeyRef), not a value or a ConfigMap", s, env)
			case first == nil:
				first, firstOf = ref, s
			case ref.Name != first.Name || ref.Key != first.Key:
				add("Deployment %s: %s comes from Secret %s key %s, but %s reads Secret %s key %s: they must agree", s, env, ref.Name, ref.Key, firstOf, first.Name, first.Key)
			}
		}
	}
}

// nginxSize is an nginx size ("25m", "1g", "512k", "1048576") in bytes (binary units, as nginx reads them).
func nginxSize(v string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(v, "k") || strings.HasSuffix(v, "K"):
		mult = 1 << 10
	case strings.HasSuffix(v, "m") || strings.HasSuffix(v, "M"):
		mult = 1 << 20
	case strings.HasSuffix(v, "g") || strings.HasSuffix(v, "G"):
		mult = 1 << 30
	}
	n, err := strconv.ParseInt(strings.TrimRight(v, "kKmMgG"), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("not an nginx size: %q", v)
	}
	return n * mult, nil
}

// BusConsumers consume Kafka topics in one consumer group per service: a replica beyond the partition count
// gets no partition and does nothing (the runner's run requests, tasks' runner events, webhooks' updates).
var BusConsumers = []string{"tasks", "runner", "webhooks"}

// defaultPartitions is KAFKA_TOPIC_PARTITIONS's default in packages/engines.
const defaultPartitions = 6

// The most replicas a consumer can have (its HPA's maxReplicas, else its replicas) fit the partitions its
// topics are created with (KAFKA_TOPIC_PARTITIONS in its environment).
func checkPartitions(ix *Index, add func(string, ...any)) {
	for _, s := range BusConsumers {
		w := ix.workload("Deployment", s)
		if w == nil || len(w.spec.Containers) == 0 {
			continue
		}
		env := checkEnvRefs(ix, w.spec.Containers[0], Options{}, func(string) {})
		partitions := defaultPartitions
		if v, ok := env["KAFKA_TOPIC_PARTITIONS"]; ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				add("Deployment %s: KAFKA_TOPIC_PARTITIONS=%q is not a number", s, v)
				continue
			}
			partitions = n
		}
		most, what := int32(1), "replicas"
		if r := ix.replicas[s]; r != nil {
			most = *r
		}
		for _, h := range ix.hpas {
			if h.Spec.ScaleTargetRef.Kind == "Deployment" && h.Spec.ScaleTargetRef.Name == s {
				most, what = h.Spec.MaxReplicas, "HorizontalPodAutoscaler maxReplicas"
			}
		}
		if int(most) > partitions {
			add("Deployment %s: %s %d exceed KAFKA_TOPIC_PARTITIONS %d: the replicas beyond it would get no partition", s, what, most, partitions)
		}
	}
}

package main

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Endpoint is one side of a connection: a pod (namespace labels and pod labels) or an address outside the
// cluster (IP).
type Endpoint struct {
	Namespace string
	PodLabels map[string]string
	IP        string
}

func nsLabels(ns string) labels.Set { return labels.Set{"kubernetes.io/metadata.name": ns} }

func selectorMatches(sel *metav1.LabelSelector, set map[string]string) bool {
	if sel == nil {
		return true
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	return err == nil && s.Matches(labels.Set(set))
}

func peerMatches(p networkingv1.NetworkPolicyPeer, policyNS string, e Endpoint) bool {
	if p.IPBlock != nil {
		if e.IP == "" {
			return false
		}
		addr, err := netip.ParseAddr(e.IP)
		if err != nil {
			return false
		}
		cidr, err := netip.ParsePrefix(p.IPBlock.CIDR)
		if err != nil || !cidr.Contains(addr) {
			return false
		}
		for _, ex := range p.IPBlock.Except {
			if x, err := netip.ParsePrefix(ex); err == nil && x.Contains(addr) {
				return false
			}
		}
		return true
	}
	if e.IP != "" {
		return false
	}
	if p.NamespaceSelector == nil {
		return e.Namespace == policyNS && selectorMatches(p.PodSelector, e.PodLabels)
	}
	return selectorMatches(p.NamespaceSelector, nsLabels(e.Namespace)) && selectorMatches(p.PodSelector, e.PodLabels)
}

func portMatches(ports []networkingv1.NetworkPolicyPort, containers []corev1.Container, port int32, proto corev1.Protocol) bool {
	if len(ports) == 0 {
		return true
	}
	for _, p := range ports {
		pp := corev1.ProtocolTCP
		if p.Protocol != nil {
			pp = *p.Protocol
		}
		if pp != proto {
			continue
		}
		if p.Port == nil {
			return true
		}
		if p.Port.StrVal == "" {
			end := p.Port.IntVal
			if p.EndPort != nil {
				end = *p.EndPort
			}
			if port >= p.Port.IntVal && port <= end {
				return true
			}
			continue
		}
		for _, c := range containers {
			for _, cp := range c.Ports {
				if cp.Name == p.Port.StrVal && cp.ContainerPort == port {
					return true
				}
			}
		}
	}
	return false
}

// Network evaluates the rendered NetworkPolicies the way a conforming network plugin enforces them.
type Network struct {
	ix        *Index
	Namespace string
}

func (n Network) selected(pod Endpoint, kind networkingv1.PolicyType) []*networkingv1.NetworkPolicy {
	var out []*networkingv1.NetworkPolicy
	if pod.Namespace != n.Namespace || pod.IP != "" {
		return nil // pods of other namespaces: not governed by these policies
	}
	for _, p := range n.ix.policies {
		types := p.Spec.PolicyTypes
		has := false
		for _, t := range types {
			has = has || t == kind
		}
		if has && selectorMatches(&p.Spec.PodSelector, pod.PodLabels) {
			out = append(out, p)
		}
	}
	return out
}

func (n Network) containersOf(pod Endpoint) []corev1.Container {
	for _, w := range n.ix.workloads {
		if labels.SelectorFromSet(w.labels).Matches(labels.Set(pod.PodLabels)) {
			return w.spec.Containers
		}
	}
	return nil
}

// Allowed reports whether from may open a connection to to:port/proto (egress of from, ingress of to).
func (n Network) Allowed(from, to Endpoint, port int32, proto corev1.Protocol) bool {
	if eg := n.selected(from, networkingv1.PolicyTypeEgress); len(eg) > 0 {
		ok := false
		for _, p := range eg {
			for _, r := range p.Spec.Egress {
				peerOK := len(r.To) == 0
				for _, peer := range r.To {
					peerOK = peerOK || peerMatches(peer, n.Namespace, to)
				}
				if peerOK && portMatches(r.Ports, n.containersOf(to), port, proto) {
					ok = true
				}
			}
		}
		if !ok {
			return false
		}
	}
	if in := n.selected(to, networkingv1.PolicyTypeIngress); len(in) > 0 {
		for _, p := range in {
			for _, r := range p.Spec.Ingress {
				peerOK := len(r.From) == 0
				for _, peer := range r.From {
					peerOK = peerOK || peerMatches(peer, n.Namespace, from)
				}
				if peerOK && portMatches(r.Ports, n.containersOf(to), port, proto) {
					return true
				}
			}
		}
		return false
	}
	return true
}

// The reachability the issue asks for, checked on synthetic peers:
//   - only the gateway is reachable from the ingress controller, and nothing else from outside the namespace;
//   - the tasks gRPC port only from gateway, runner and webhooks; the linker's and webhooks' only from the gateway;
//   - runner and webhooks reach the internet and DNS but no private, link-local or cluster-internal address.
func checkNetwork(ix *Index, add func(string, ...any)) {
	ns := ""
	for _, p := range ix.policies {
		ns = p.Namespace
	}
	n := Network{ix: ix, Namespace: ns}
	pod := func(name string) Endpoint {
		return Endpoint{Namespace: ns, PodLabels: map[string]string{"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "a2a-inbound"}}
	}
	ports := map[string]int32{}
	for _, s := range Services {
		if w := ix.workload("Deployment", s); w != nil && len(w.spec.Containers) > 0 && len(w.spec.Containers[0].Ports) > 0 {
			ports[s] = w.spec.Containers[0].Ports[0].ContainerPort
		}
	}
	ingressController := Endpoint{Namespace: "ingress-nginx", PodLabels: map[string]string{"app.kubernetes.io/name": "ingress-nginx"}}
	otherNS := Endpoint{Namespace: "someone-else", PodLabels: map[string]string{"app.kubernetes.io/name": "gateway"}}
	stranger := Endpoint{Namespace: ns, PodLabels: map[string]string{"app": "debug"}}
	tcp := corev1.ProtocolTCP
	expect := func(want bool, from Endpoint, fromName, toName string) {
		port, ok := ports[toName]
		if !ok {
			return // reported by checkRequired
		}
		if got := n.Allowed(from, pod(toName), port, tcp); got != want {
			verb := map[bool]string{true: "must reach", false: "must not reach"}[want]
			add("NetworkPolicy: %s %s %s on port %d", fromName, verb, toName, port)
		}
	}
	for _, s := range Services {
		expect(s == "gateway", ingressController, "the ingress controller", s)
		expect(false, otherNS, "a pod of another namespace", s)
		expect(false, stranger, "an unlabelled pod of the namespace", s)
	}
	for _, from := range Services {
		expect(from == "gateway" || from == "runner" || from == "webhooks", pod(from), from, "tasks")
		expect(from == "gateway", pod(from), from, "linker")
		expect(from == "gateway", pod(from), from, "webhooks") // the push delivery log (WebhooksService)
	}
	// Metrics: Prometheus (namespace monitoring) scrapes every service's metrics port; nothing public reaches it.
	prometheus := Endpoint{Namespace: "monitoring", PodLabels: map[string]string{"app.kubernetes.io/name": "prometheus"}}
	for _, s := range Services {
		w := ix.workload("Deployment", s)
		if w == nil || len(w.spec.Containers) == 0 {
			continue
		}
		var metricsPort int32
		for _, p := range w.spec.Containers[0].Ports {
			if p.Name == "metrics" {
				metricsPort = p.ContainerPort
			}
		}
		if metricsPort == 0 {
			add("Deployment %s: no container port named metrics", s)
			continue
		}
		if !n.Allowed(prometheus, pod(s), metricsPort, tcp) {
			add("NetworkPolicy: Prometheus (namespace monitoring) must reach %s metrics on port %d", s, metricsPort)
		}
		for name, from := range map[string]Endpoint{"the ingress controller": ingressController, "a pod of another namespace": otherNS} {
			if n.Allowed(from, pod(s), metricsPort, tcp) {
				add("NetworkPolicy: %s must not reach %s metrics on port %d", name, s, metricsPort)
			}
		}
	}
	dns := Endpoint{Namespace: "kube-system", PodLabels: map[string]string{"k8s-app": "kube-dns"}}
	for _, from := range []string{"runner", "webhooks"} {
		for _, ip := range []string{"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"} {
			if !n.Allowed(pod(from), Endpoint{IP: ip}, 443, tcp) {
				add("NetworkPolicy: %s must reach the internet (%s:443)", from, ip)
			}
		}
		for _, ip := range []string{"10.0.0.10", "172.16.3.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "fd00::1", "fe80::1"} {
			for _, port := range []int32{80, 443} {
				if n.Allowed(pod(from), Endpoint{IP: ip}, port, tcp) {
					add("NetworkPolicy: %s must not reach the private address %s:%d", from, ip, port)
				}
			}
		}
		if !n.Allowed(pod(from), dns, 53, corev1.ProtocolUDP) {
			add("NetworkPolicy: %s must reach DNS", from)
		}
		if !n.Allowed(pod(from), pod("tasks"), ports["tasks"], tcp) {
			add("NetworkPolicy: %s must reach tasks", from)
		}
		for _, s := range []string{"gateway", "linker"} {
			if n.Allowed(pod(from), pod(s), ports[s], tcp) {
				add("NetworkPolicy: %s must not reach %s", from, s)
			}
		}
	}
	if ns == "" {
		add("NetworkPolicy: none rendered")
	}
	_ = fmt.Sprint
}

package main

import (
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// grpcPorts is the gRPC service port of each service that serves one (the gateway only dials).
var grpcPorts = map[string]string{"tasks": "TASKS_GRPC_PORT", "runner": "RUNNER_GRPC_PORT",
	"webhooks": "WEBHOOKS_GRPC_PORT", "linker": "LINKER_GRPC_PORT"}

// checkTransport holds the rendered services to what they themselves refuse at start with NODE_ENV=production
// (ADR 0035), so that an overlay fails here and not in the cluster: mutual TLS on gRPC from a mounted
// cert-manager Certificate of the service's own name, probes that can reach a TLS server (GRPC_HEALTH_PORT),
// Kafka on TLS, and Redis and MongoDB URLs on TLS where their values are rendered (an external Secret's value
// is not known here: the service checks it when it starts). ALLOW_PLAINTEXT_LINKS is honoured like the
// services do, except with -production, where it is refused.
func checkTransport(ix *Index, opts Options, add func(string, ...any)) {
	for _, w := range ix.workloads {
		if w.kind != "Deployment" || !isService(w.name) || len(w.spec.Containers) == 0 {
			continue
		}
		c := w.spec.Containers[0]
		at := fmt.Sprintf("Deployment %s container %s", w.name, c.Name)
		env, secretEnv := containerEnv(ix, c)
		if env["NODE_ENV"] != "production" {
			continue
		}
		allowed := map[string]bool{}
		if raw := strings.TrimSpace(env["ALLOW_PLAINTEXT_LINKS"]); raw != "" {
			if opts.Production {
				add("%s: ALLOW_PLAINTEXT_LINKS=%s: the production overlay accepts no plaintext link", at, raw)
			} else {
				for _, l := range strings.Split(raw, ",") {
					allowed[strings.TrimSpace(l)] = true
				}
			}
		}
		tls := env["GRPC_TLS_CA_FILE"] != "" && env["GRPC_TLS_CERT_FILE"] != "" && env["GRPC_TLS_KEY_FILE"] != ""
		if !tls && !allowed["grpc"] {
			add("%s: plaintext gRPC in production: set GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE from a mounted Certificate (components/mtls)", at)
		}
		if tls {
			checkCertificateMount(ix, w, c, env, func(msg string) { add("%s: %s", at, msg) })
			checkTLSProbes(w.name, c, env, func(msg string) { add("%s: %s", at, msg) })
		}
		_, kafka := env["KAFKA_BROKERS"]
		if kafka || secretEnv["KAFKA_BROKERS"] {
			if !truthy(env["KAFKA_TLS"]) && env["KAFKA_TLS_CA_FILE"] == "" && !allowed["kafka"] {
				add("%s: plaintext Kafka in production: set KAFKA_TLS=true (or KAFKA_TLS_CA_FILE)", at)
			}
		}
		if u, ok := env["REDIS_URL"]; ok && !strings.HasPrefix(strings.ToLower(u), "rediss://") && !allowed["redis"] {
			add("%s: plaintext Redis in production: REDIS_URL %s must be rediss://", at, redactURL(u))
		}
		if u, ok := env["MONGO_URL"]; ok && !mongoTLS(u) && !allowed["mongo"] {
			add("%s: plaintext MongoDB in production: MONGO_URL %s must carry tls=true (or be mongodb+srv://)", at, redactURL(u))
		}
	}
}

func isService(name string) bool {
	for _, s := range Services {
		if s == name {
			return true
		}
	}
	return false
}

// containerEnv is the container's literal environment (ConfigMaps, values, and the values of rendered Secrets),
// and the names it reads from Secrets whose values are not rendered.
func containerEnv(ix *Index, c corev1.Container) (map[string]string, map[string]bool) {
	env := map[string]string{}
	unknown := map[string]bool{}
	for _, from := range c.EnvFrom {
		if from.ConfigMapRef != nil {
			if cm := ix.configMaps[from.ConfigMapRef.Name]; cm != nil {
				for k, v := range cm.Data {
					env[k] = v
				}
			}
		}
		if from.SecretRef != nil {
			for k, v := range ix.secretData[from.SecretRef.Name] {
				env[k] = v
			}
		}
	}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = e.Value
		case e.ValueFrom.ConfigMapKeyRef != nil:
			if cm := ix.configMaps[e.ValueFrom.ConfigMapKeyRef.Name]; cm != nil {
				if v, ok := cm.Data[e.ValueFrom.ConfigMapKeyRef.Key]; ok {
					env[e.Name] = v
				}
			}
		case e.ValueFrom.SecretKeyRef != nil:
			r := e.ValueFrom.SecretKeyRef
			if v, ok := ix.secretData[r.Name][r.Key]; ok {
				env[e.Name] = v
			} else {
				unknown[e.Name] = true
			}
		}
	}
	return env, unknown
}

// The three GRPC_TLS_* files lie in one volume of a Secret that a rendered Certificate writes, whose common name
// is the service (the identity the servers check), issued by a rendered Issuer.
func checkCertificateMount(ix *Index, w workload, c corev1.Container, env map[string]string, bad func(string)) {
	var volume string
	for _, name := range []string{"GRPC_TLS_CA_FILE", "GRPC_TLS_CERT_FILE", "GRPC_TLS_KEY_FILE"} {
		file := env[name]
		found := ""
		for _, m := range c.VolumeMounts {
			if strings.HasPrefix(file, strings.TrimSuffix(m.MountPath, "/")+"/") && path.Dir(file) == path.Clean(m.MountPath) {
				found = m.Name
			}
		}
		if found == "" {
			bad(fmt.Sprintf("%s=%s is not in a mounted volume", name, file))
			return
		}
		if volume != "" && volume != found {
			bad("GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE are in different volumes")
			return
		}
		volume = found
	}
	var secret string
	for _, v := range w.spec.Volumes {
		if v.Name == volume && v.Secret != nil {
			secret = v.Secret.SecretName
		}
	}
	if secret == "" {
		bad(fmt.Sprintf("the GRPC_TLS_* volume %q is not a Secret", volume))
		return
	}
	var cert *Certificate
	for _, ct := range ix.certificates {
		if ct.Spec.SecretName == secret {
			cert = ct
		}
	}
	if cert == nil {
		bad(fmt.Sprintf("Secret %q of the GRPC_TLS_* files is written by no rendered cert-manager Certificate", secret))
		return
	}
	if cert.Spec.CommonName != w.name {
		bad(fmt.Sprintf("Certificate %s has common name %q: the servers identify this service by %q", cert.Name, cert.Spec.CommonName, w.name))
	}
	if cert.Spec.IsCA {
		bad(fmt.Sprintf("Certificate %s is a CA, not the service's certificate", cert.Name))
	}
	if ref := cert.Spec.IssuerRef; (ref.Kind == "" || ref.Kind == "Issuer") && ix.issuers[ref.Name] == nil {
		bad(fmt.Sprintf("Certificate %s: Issuer %q is not rendered", cert.Name, ref.Name))
	}
	usages := strings.Join(cert.Spec.Usages, ",")
	for _, u := range []string{"server auth", "client auth"} {
		if len(cert.Spec.Usages) > 0 && !strings.Contains(usages, u) {
			bad(fmt.Sprintf("Certificate %s lacks the usage %q", cert.Name, u))
		}
	}
}

// The kubelet's grpc probes speak plaintext: on a TLS server they must use GRPC_HEALTH_PORT, not the service port.
func checkTLSProbes(service string, c corev1.Container, env map[string]string, bad func(string)) {
	portVar, serves := grpcPorts[service]
	if !serves {
		return
	}
	health, err := strconv.Atoi(env["GRPC_HEALTH_PORT"])
	for name, p := range map[string]*corev1.Probe{"startup": c.StartupProbe, "liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		if p == nil || p.GRPC == nil {
			continue
		}
		if err != nil || int(p.GRPC.Port) != health {
			bad(fmt.Sprintf("%s probe: grpc port %d, but %s=%s speaks TLS and the kubelet's grpc probe does not: probe GRPC_HEALTH_PORT (%q)",
				name, p.GRPC.Port, portVar, env[portVar], env["GRPC_HEALTH_PORT"]))
		}
	}
}

func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// mongoTLS: tls=true or ssl=true, or mongodb+srv:// unless it turns TLS off (the connection string specification).
func mongoTLS(raw string) bool {
	lower := strings.ToLower(strings.TrimSpace(raw))
	query := ""
	if i := strings.Index(lower, "?"); i >= 0 {
		query = lower[i+1:]
	}
	q, _ := url.ParseQuery(query)
	flag := q.Get("tls")
	if flag == "" {
		flag = q.Get("ssl")
	}
	if flag == "" {
		return strings.HasPrefix(lower, "mongodb+srv://")
	}
	return flag == "true"
}

// redactURL drops the userinfo of a URL before it is printed.
func redactURL(raw string) string {
	if i := strings.Index(raw, "://"); i >= 0 {
		rest := raw[i+3:]
		if at := strings.LastIndex(strings.SplitN(rest, "/", 2)[0], "@"); at >= 0 {
			return raw[:i+3] + "…@" + rest[at+1:]
		}
	}
	return raw
}

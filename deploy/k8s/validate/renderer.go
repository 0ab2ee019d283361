package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
)

// Renderer turns a kustomization directory into a multi-document YAML stream.
type Renderer struct {
	// Name says what rendered, for the log: "kubectl kustomize (kubectl v1.32.4, kustomize v5.5.0)".
	Name   string
	Render func(dir string) ([]byte, error)
}

// LibraryRenderer renders with the kustomize Go library (sigs.k8s.io/kustomize/api, what kubectl embeds).
func LibraryRenderer() Renderer {
	return Renderer{Name: "kustomize's Go library (sigs.k8s.io/kustomize/api v0.20.1)", Render: Render}
}

// KubectlRenderer renders with `<kubectl> kustomize <dir>`.
func KubectlRenderer(kubectl, name string) Renderer {
	return Renderer{Name: name, Render: func(dir string) ([]byte, error) {
		var stderr bytes.Buffer
		cmd := exec.Command(kubectl, "kustomize", dir)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%s kustomize %s: %w: %s", kubectl, dir, err, bytes.TrimSpace(stderr.Bytes()))
		}
		return out, nil
	}}
}

// minKustomizeMajor: the overlays use `patches:` with targets and `labels:`, which kustomize v2.0.3 (embedded
// by kubectl up to 1.20, e.g. Debian 12's kubernetes-client 1.20.2) cannot read.
const minKustomizeMajor = 4

var semverMajor = regexp.MustCompile(`^v?(\d+)\.`)

// kustomizeMajor is the major version of a kustomize version string, 0 when unknown.
func kustomizeMajor(v string) int {
	m := semverMajor.FindStringSubmatch(v)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// kubectlVersions asks `<kubectl> version --client -o json` for its own and its kustomize's version. kubectl
// before 1.24 does not report the kustomize it embeds (v2.0.3 up to 1.20, v4.0.5 in 1.21–1.23): "" then.
func kubectlVersions(kubectl string) (client, kustomize string, err error) {
	out, err := exec.Command(kubectl, "version", "--client", "-o", "json").Output()
	if err != nil {
		return "", "", fmt.Errorf("%s version --client: %w", kubectl, err)
	}
	var v struct {
		ClientVersion struct {
			GitVersion string `json:"gitVersion"`
		} `json:"clientVersion"`
		KustomizeVersion string `json:"kustomizeVersion"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return "", "", fmt.Errorf("%s version --client -o json: %w", kubectl, err)
	}
	return v.ClientVersion.GitVersion, v.KustomizeVersion, nil
}

// ChooseRenderer picks the renderer for mode "kubectl", "library" or "auto". Auto uses `kubectl kustomize`
// when kubectl is found and embeds kustomize v4 or newer, and otherwise the library, saying why.
func ChooseRenderer(mode, kubectl string) (Renderer, error) {
	if mode == "library" {
		return LibraryRenderer(), nil
	}
	if mode != "auto" && mode != "kubectl" {
		return Renderer{}, fmt.Errorf("-renderer must be auto, kubectl or library, not %q", mode)
	}
	fallback := func(why string) (Renderer, error) {
		if mode == "kubectl" {
			return Renderer{}, fmt.Errorf("-renderer kubectl: %s", why)
		}
		r := LibraryRenderer()
		r.Name += " (" + why + ")"
		return r, nil
	}
	path, err := exec.LookPath(kubectl)
	if err != nil {
		return fallback(fmt.Sprintf("no %s on PATH", kubectl))
	}
	client, kz, err := kubectlVersions(path)
	if err != nil {
		return fallback(err.Error())
	}
	if kustomizeMajor(kz) < minKustomizeMajor {
		if kz == "" {
			kz = "an unreported (pre-1.24, v2 or v4.0) kustomize"
		}
		return fallback(fmt.Sprintf("%s %s embeds %s; the overlays need kustomize v%d+", path, client, kz, minKustomizeMajor))
	}
	return KubectlRenderer(path, fmt.Sprintf("kubectl kustomize (%s %s, kustomize %s)", path, client, kz)), nil
}

// defaultKubectl is $KUBECTL, else "kubectl".
func defaultKubectl() string {
	if k := os.Getenv("KUBECTL"); k != "" {
		return k
	}
	return "kubectl"
}

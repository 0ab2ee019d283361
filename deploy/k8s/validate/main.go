// Command validate renders kustomize overlays offline and checks them: every object decodes strictly into
// the k8s.io/api types, and the policies in policy.go and network.go hold (probes, requests and limits, the
// restricted securityContext, references, shutdown budgets, NetworkPolicy reachability).
//
// Rendering uses `kubectl kustomize` when a kubectl embedding kustomize v4+ is found (-kubectl, $KUBECTL or
// PATH), else kustomize's Go library; it prints which (-renderer kubectl or library forces one).
//
//	go run . [-renderer auto|kubectl|library] [-kubectl path] [-external-secrets a,b] [-production] <kustomization dir>...
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	external := flag.String("external-secrets", "", "comma-separated Secrets that may be referenced without being rendered")
	out := flag.String("o", "", "also write the rendered YAML of the last directory to this file")
	mode := flag.String("renderer", "auto", "auto (kubectl kustomize if usable, else the library), kubectl or library")
	kubectl := flag.String("kubectl", defaultKubectl(), "the kubectl binary for -renderer auto or kubectl")
	production := flag.Bool("production", false, "refuse every plaintext gRPC and engine link, ALLOW_PLAINTEXT_LINKS included")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: validate [-external-secrets a,b] <kustomization dir>...")
		os.Exit(2)
	}
	opts := Options{Production: *production}
	if *external != "" {
		opts.ExternalSecrets = strings.Split(*external, ",")
	}
	renderer, err := ChooseRenderer(*mode, *kubectl)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Printf("rendering with %s\n", renderer.Name)
	failed := false
	for _, dir := range flag.Args() {
		problems, count := ValidateWith(renderer, dir, opts, *out)
		for _, p := range problems {
			fmt.Printf("%s: %s\n", dir, p)
		}
		if len(problems) > 0 {
			failed = true
			fmt.Printf("%s: %d objects, %d problems\n", dir, count, len(problems))
		} else {
			fmt.Printf("%s: %d objects, valid\n", dir, count)
		}
	}
	if failed {
		os.Exit(1)
	}
}

// Validate renders dir with the kustomize library and returns every problem (decode errors, then policy
// violations) and the number of rendered objects.
func Validate(dir string, opts Options, out string) ([]string, int) {
	return ValidateWith(LibraryRenderer(), dir, opts, out)
}

// ValidateWith is Validate with the given renderer.
func ValidateWith(r Renderer, dir string, opts Options, out string) ([]string, int) {
	yml, err := r.Render(dir)
	if err != nil {
		return []string{err.Error()}, 0
	}
	if out != "" {
		if err := os.WriteFile(out, yml, 0o644); err != nil {
			return []string{err.Error()}, 0
		}
	}
	objs, errs := DecodeStrict(yml)
	var problems []string
	for _, e := range errs {
		problems = append(problems, e.Error())
	}
	return append(problems, Check(objs, opts)...), len(objs) + len(errs)
}

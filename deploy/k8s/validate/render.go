package main

import (
	"bytes"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// Object is one rendered manifest decoded into its typed k8s.io/api struct.
type Object struct {
	GVK  schema.GroupVersionKind
	Name string
	Obj  runtime.Object
}

// The API groups the manifests may use (plus cert-manager's Issuer and Certificate: certmanager.go). A kind
// outside them is an error: nothing passes unchecked.
func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, policyv1.AddToScheme, autoscalingv2.AddToScheme,
		networkingv1.AddToScheme, rbacv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}

// Render builds a kustomization directory with the kustomize library that `kubectl kustomize` embeds.
func Render(dir string) ([]byte, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize %s: %w", dir, err)
	}
	return m.AsYaml()
}

// DecodeStrict splits a multi-document YAML stream and decodes every document strictly (unknown or
// duplicate fields, wrong types and unknown kinds are errors) into the k8s.io/api types.
func DecodeStrict(stream []byte) ([]Object, []error) {
	scheme := newScheme()
	strict := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme,
		kjson.SerializerOptions{Yaml: true, Strict: true})
	var objs []Object
	var errs []error
	for i, doc := range bytes.Split(stream, []byte("\n---\n")) {
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var meta struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			errs = append(errs, fmt.Errorf("document %d: %w", i, err))
			continue
		}
		gvk := schema.FromAPIVersionAndKind(meta.APIVersion, meta.Kind)
		where := fmt.Sprintf("%s %s", meta.Kind, meta.Metadata.Name)
		if obj, ok, err := decodeCertManager(gvk, doc); ok {
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", where, err))
			} else if meta.Metadata.Name == "" {
				errs = append(errs, fmt.Errorf("document %d (%s): metadata.name is empty", i, gvk.Kind))
			} else {
				objs = append(objs, Object{GVK: gvk, Name: meta.Metadata.Name, Obj: obj})
			}
			continue
		}
		if !scheme.Recognizes(gvk) {
			errs = append(errs, fmt.Errorf("%s: no schema for %s", where, gvk))
			continue
		}
		obj, _, err := strict.Decode(doc, &gvk, nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			continue
		}
		if meta.Metadata.Name == "" {
			errs = append(errs, fmt.Errorf("document %d (%s): metadata.name is empty", i, gvk.Kind))
			continue
		}
		objs = append(objs, Object{GVK: gvk, Name: meta.Metadata.Name, Obj: obj})
	}
	return objs, errs
}

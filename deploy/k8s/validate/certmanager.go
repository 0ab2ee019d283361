package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// The cert-manager.io/v1 kinds the mTLS component renders. The validator has no cert-manager dependency: these
// are the fields of its v1 API that the manifests use, decoded strictly (an unknown or misspelt field is an
// error, as for the k8s.io/api kinds). A field cert-manager has but these structs lack is refused: add it here.

var certManagerV1 = schema.GroupVersion{Group: "cert-manager.io", Version: "v1"}

// IssuerRef names the issuer of a Certificate.
type IssuerRef struct {
	Name  string `json:"name"`
	Kind  string `json:"kind,omitempty"`
	Group string `json:"group,omitempty"`
}

// CertificatePrivateKey is the key cert-manager generates.
type CertificatePrivateKey struct {
	Algorithm      string `json:"algorithm,omitempty"`
	Size           int    `json:"size,omitempty"`
	Encoding       string `json:"encoding,omitempty"`
	RotationPolicy string `json:"rotationPolicy,omitempty"`
}

// CertificateSpec is the subset of cert-manager's CertificateSpec used here.
type CertificateSpec struct {
	SecretName  string                 `json:"secretName"`
	CommonName  string                 `json:"commonName,omitempty"`
	DNSNames    []string               `json:"dnsNames,omitempty"`
	IsCA        bool                   `json:"isCA,omitempty"`
	Duration    string                 `json:"duration,omitempty"`
	RenewBefore string                 `json:"renewBefore,omitempty"`
	PrivateKey  *CertificatePrivateKey `json:"privateKey,omitempty"`
	Usages      []string               `json:"usages,omitempty"`
	IssuerRef   IssuerRef              `json:"issuerRef"`
}

// Certificate is a cert-manager.io/v1 Certificate.
type Certificate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              CertificateSpec `json:"spec"`
}

// IssuerSpec is the subset of cert-manager's IssuerConfig used here: a self-signed or a CA issuer.
type IssuerSpec struct {
	SelfSigned *struct{} `json:"selfSigned,omitempty"`
	CA         *struct {
		SecretName string `json:"secretName"`
	} `json:"ca,omitempty"`
}

// Issuer is a cert-manager.io/v1 Issuer.
type Issuer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              IssuerSpec `json:"spec"`
}

// DeepCopyObject (runtime.Object): the validator never mutates these.
func (c *Certificate) DeepCopyObject() runtime.Object { cp := *c; return &cp }

// DeepCopyObject (runtime.Object).
func (i *Issuer) DeepCopyObject() runtime.Object { cp := *i; return &cp }

// decodeCertManager decodes a cert-manager.io/v1 document strictly; ok is false for any other kind.
func decodeCertManager(gvk schema.GroupVersionKind, doc []byte) (runtime.Object, bool, error) {
	if gvk.GroupVersion() != certManagerV1 {
		return nil, false, nil
	}
	switch gvk.Kind {
	case "Certificate":
		var c Certificate
		return &c, true, yaml.UnmarshalStrict(doc, &c)
	case "Issuer":
		var i Issuer
		return &i, true, yaml.UnmarshalStrict(doc, &i)
	}
	return nil, false, nil
}

// Package thirdpartyac stands for the apply configurations a third-party
// module ships for its types (hand-written here).
package thirdpartyac

// EndpointApplyConfiguration is thirdparty.Endpoint's apply configuration.
type EndpointApplyConfiguration struct {
	Host *string `json:"host,omitempty"`
	Port *int32  `json:"port,omitempty"`
}

// Endpoint constructs an EndpointApplyConfiguration.
func Endpoint() *EndpointApplyConfiguration { return &EndpointApplyConfiguration{} }

// WithHost sets Host.
func (b *EndpointApplyConfiguration) WithHost(v string) *EndpointApplyConfiguration {
	b.Host = &v
	return b
}

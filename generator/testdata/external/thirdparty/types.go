// Package thirdparty stands for a third-party module's API types.
package thirdparty

// Endpoint is a type whose module ships its own apply configurations.
type Endpoint struct {
	Host string `json:"host"`
	Port int32  `json:"port,omitempty"`
}

// Package audit reads kube-apiserver audit logs (audit.k8s.io/v1 events,
// one JSON object a line, as the log backend writes them, gzip or not) and
// says who spends requests on what: per writer (user, user agent, field
// manager) × resource × verb, the requests, the 409 Conflicts, the writes
// that changed nothing, and Create → 409 → Update sequences. `ssagen
// audit` prints it, and joins the costly rows to ssagen vet's findings in
// the source that sends them.
//
// The package reads a stream once and keeps, beyond the rows, one
// resourceVersion and one pending-create flag per object written: memory
// grows with the objects and writers in the log, not with its length.
package audit

import (
	"encoding/json"
	"net/url"
	"time"
)

// Event is the part of an audit.k8s.io/v1 Event the report reads.
type Event struct {
	APIVersion               string     `json:"apiVersion"`
	Kind                     string     `json:"kind"`
	Level                    string     `json:"level"`
	Stage                    string     `json:"stage"`
	RequestURI               string     `json:"requestURI"`
	Verb                     string     `json:"verb"`
	User                     UserInfo   `json:"user"`
	ImpersonatedUser         *UserInfo  `json:"impersonatedUser,omitempty"`
	UserAgent                string     `json:"userAgent"`
	ObjectRef                *ObjectRef `json:"objectRef,omitempty"`
	ResponseStatus           *Status    `json:"responseStatus,omitempty"`
	RequestObject            *Body      `json:"requestObject,omitempty"`
	ResponseObject           *Body      `json:"responseObject,omitempty"`
	RequestReceivedTimestamp time.Time  `json:"requestReceivedTimestamp"`
	StageTimestamp           time.Time  `json:"stageTimestamp"`
}

// UserInfo is who sent a request.
type UserInfo struct {
	Username string `json:"username"`
}

// ObjectRef is the object a request is about.
type ObjectRef struct {
	Resource        string `json:"resource"`
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	APIGroup        string `json:"apiGroup"`
	APIVersion      string `json:"apiVersion"`
	ResourceVersion string `json:"resourceVersion"`
	Subresource     string `json:"subresource"`
}

// Status is the response's status.
type Status struct {
	Code int `json:"code"`
}

// code is the response code, 0 when the event has none.
func (e *Event) code() int {
	if e.ResponseStatus == nil {
		return 0
	}
	return e.ResponseStatus.Code
}

// fieldManager is the fieldManager query parameter of the request.
func (e *Event) fieldManager() string {
	u, err := url.Parse(e.RequestURI)
	if err != nil {
		return ""
	}
	return u.Query().Get("fieldManager")
}

// Body is what the report reads of an object an event carries: its
// metadata.resourceVersion ("" when it has none, or is a Status answer).
// The object itself is not kept: a reader's memory does not grow with
// the bodies the policy logs.
type Body struct {
	ResourceVersion string
}

// UnmarshalJSON reads the resourceVersion of the object.
func (b *Body) UnmarshalJSON(raw []byte) error {
	b.ResourceVersion = resourceVersionOf(raw)
	return nil
}

// version is the body's resourceVersion, "" for no body.
func (b *Body) version() string {
	if b == nil {
		return ""
	}
	return b.ResourceVersion
}

// resourceVersionOf reads metadata.resourceVersion of an object in the
// event ("" when it is not there: a level that leaves bodies out, a
// Status answer).
func resourceVersionOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var obj struct {
		Kind     string `json:"kind"`
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &obj) != nil || obj.Kind == "Status" {
		return ""
	}
	return obj.Metadata.ResourceVersion
}

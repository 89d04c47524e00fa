package input

import "k8s.io/apimachinery/pkg/runtime"

// Shallow copies: enough for the golden's tests, which never mutate.

func (in *Widget) DeepCopyObject() runtime.Object       { out := *in; return &out }
func (in *WidgetFrom) DeepCopyObject() runtime.Object   { out := *in; return &out }
func (in *FieldManager) DeepCopyObject() runtime.Object { out := *in; return &out }

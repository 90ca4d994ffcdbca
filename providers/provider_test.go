package providers

import (
	"strings"
	"testing"
)

type testOptions struct {
	Home string `koanf:"home"`
}

func defaultTestOptions() *testOptions { return &testOptions{Home: "/default"} }

// TestOptionsOf checks how a factory receives its options: as decoded, the
// defaults for nil (a configuration built by hand that leaves them out),
// and an error naming the provider for another provider's options.
func TestOptionsOf(t *testing.T) {
	mine := &testOptions{Home: "/h"}
	if got, err := OptionsOf("test", mine, defaultTestOptions); err != nil || got != mine {
		t.Errorf("OptionsOf(the decoded options) = %v, %v; want them as they are", got, err)
	}
	for _, in := range []any{nil, (*testOptions)(nil)} {
		if got, err := OptionsOf("test", in, defaultTestOptions); err != nil || got.Home != "/default" {
			t.Errorf("OptionsOf(%#v) = %v, %v; want the defaults", in, got, err)
		}
	}
	for _, in := range []any{testOptions{}, map[string]any{"home": "/h"}, &struct{ Home string }{}} {
		_, err := OptionsOf("test", in, defaultTestOptions)
		if err == nil || !strings.Contains(err.Error(), "providers.test") || !strings.Contains(err.Error(), "*providers.testOptions") {
			t.Errorf("OptionsOf(%#v) error = %v, want one naming the provider and the options type", in, err)
		}
	}
}

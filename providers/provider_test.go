package providers

import (
	"strings"
	"testing"
)

type testOptions struct {
	Home string `koanf:"home"`
}

func defaultTestOptions() *testOptions { return &testOptions{Home: "/default"} }

// TestTyped checks how a factory receives its options: as decoded, the
// defaults for nil (a configuration built by hand that leaves them out),
// and an error naming the provider for another provider's options.
func TestTyped(t *testing.T) {
	var got *testOptions
	newTest := Typed("test", defaultTestOptions, func(o *testOptions) (Provider, error) {
		got = o
		return nil, nil
	})
	mine := &testOptions{Home: "/h"}
	if _, err := newTest(mine); err != nil || got != mine {
		t.Errorf("the decoded options: build got %v, %v; want them as they are", got, err)
	}
	for _, in := range []any{nil, (*testOptions)(nil)} {
		got = nil
		if _, err := newTest(in); err != nil || got == nil || got.Home != "/default" {
			t.Errorf("%#v: build got %v, %v; want the defaults", in, got, err)
		}
	}
	for _, in := range []any{testOptions{}, map[string]any{"home": "/h"}, &struct{ Home string }{}} {
		got = nil
		_, err := newTest(in)
		if err == nil || got != nil || !strings.Contains(err.Error(), "providers.test") ||
			!strings.Contains(err.Error(), "*providers.testOptions") {
			t.Errorf("%#v: error %v, build got %v; want an error naming the provider and the options type", in, err, got)
		}
	}
}

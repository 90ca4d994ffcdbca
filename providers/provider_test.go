package providers

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type testOptions struct {
	Home    string        `koanf:"home"`
	Dirs    []string      `koanf:"system_dirs"`
	Dynamic bool          `koanf:"dynamic"`
	Depth   int           `koanf:"depth"`
	Wait    time.Duration `koanf:"wait"`
}

func TestDecode(t *testing.T) {
	defaults := testOptions{Home: "/default", Dynamic: true, Depth: 1}
	tests := []struct {
		name    string
		in      map[string]any
		want    testOptions
		wantErr []string // substrings of the error; nil means no error
		notErr  []string // substrings the error must not hold
	}{
		{name: "nil options keep the defaults", in: nil, want: defaults},
		{name: "empty options keep the defaults", in: map[string]any{}, want: defaults},
		{
			name: "typed values",
			in:   map[string]any{"home": "/h", "system_dirs": []any{"/a", "/b"}, "dynamic": false, "depth": 3, "wait": time.Second},
			want: testOptions{Home: "/h", Dirs: []string{"/a", "/b"}, Dynamic: false, Depth: 3, Wait: time.Second},
		},
		{
			name: "env-style comma list decodes into []string",
			in:   map[string]any{"system_dirs": "/a,/b"},
			want: testOptions{Home: "/default", Dirs: []string{"/a", "/b"}, Dynamic: true, Depth: 1},
		},
		{
			name: "env-style single value decodes into a one-element list",
			in:   map[string]any{"system_dirs": "/only"},
			want: testOptions{Home: "/default", Dirs: []string{"/only"}, Dynamic: true, Depth: 1},
		},
		{
			name: "env-style \"false\" decodes into bool",
			in:   map[string]any{"dynamic": "false"},
			want: testOptions{Home: "/default", Dynamic: false, Depth: 1},
		},
		{
			name: "env-style \"true\", number and duration",
			in:   map[string]any{"dynamic": "true", "depth": "4", "wait": "2s"},
			want: testOptions{Home: "/default", Dynamic: true, Depth: 4, Wait: 2 * time.Second},
		},
		{
			name:    "unknown key names the provider and the closest key",
			in:      map[string]any{"hme": "/x"},
			wantErr: []string{"providers.test", `unknown key "hme"`, `did you mean "home"?`},
		},
		{
			name:    "unknown key next to valid keys still suggests",
			in:      map[string]any{"home": "/h", "dynamc": true},
			wantErr: []string{"providers.test", `unknown key "dynamc"`, `did you mean "dynamic"?`},
		},
		{
			name:    "misspelt list key",
			in:      map[string]any{"system_dir": "/a"},
			wantErr: []string{`unknown key "system_dir"`, `did you mean "system_dirs"?`},
		},
		{
			name:    "unknown key far from every key has no suggestion",
			in:      map[string]any{"zzzzzzzz": 1},
			wantErr: []string{"providers.test", `unknown key "zzzzzzzz"`},
			notErr:  []string{"did you mean"},
		},
		{
			name:    "several unknown keys: the first in sorted order is named",
			in:      map[string]any{"zeta": 1, "alpha": 2},
			wantErr: []string{`unknown key "alpha"`},
			notErr:  []string{"zeta"},
		},
		{
			name:    "bad bool string names the provider",
			in:      map[string]any{"dynamic": "maybe"},
			wantErr: []string{"providers.test", "dynamic"},
		},
		{
			name:    "bad duration names the provider",
			in:      map[string]any{"wait": "soon"},
			wantErr: []string{"providers.test", "wait"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := defaults
			err := Decode("test", tt.in, &got)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Decode mismatch (-want +got):\n%s", diff)
				}
				return
			}
			if err == nil {
				t.Fatalf("Decode(%v) = nil error, want one holding %q", tt.in, tt.wantErr)
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not hold %q", err, s)
				}
			}
			for _, s := range tt.notErr {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error %q holds %q", err, s)
				}
			}
		})
	}
}

package hostedit

import "testing"

func TestDiff(t *testing.T) {
	tests := []struct {
		name, old, new string
		existed        bool
		want           string
	}{
		{"unchanged", "a\n", "a\n", true, ""},
		{"new file", "", "{}\n", false, "--- /dev/null\n+++ f\n@@ -0,0 +1 @@\n+{}\n"},
		{"one line in the middle, context", "1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nX\n6\n7\n8\n", true,
			"--- f\n+++ f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+X\n 6\n 7\n 8\n"},
		{"appended, no final newline before", "a", "a\nb\n", true,
			"--- f\n+++ f\n@@ -1 +1,2 @@\n-a\n\\ No newline at end of file\n+a\n+b\n"},
		{"removed", "a\nb\nc\n", "a\nc\n", true, "--- f\n+++ f\n@@ -1,3 +1,2 @@\n a\n-b\n c\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Diff("f", []byte(tt.old), []byte(tt.new), tt.existed); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

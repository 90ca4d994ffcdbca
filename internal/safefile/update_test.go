package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// TestUpdate: concurrent read-modify-writes lose nothing; an edit that
// returns no content writes nothing; a file changed between the read and
// the rename is read again; an edit error comes back as it is.
func TestUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "count")
	increment := func() ([]byte, []byte, error) {
		before, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			before = nil
		} else if err != nil {
			return nil, nil, err
		}
		n, _ := strconv.Atoi(string(before))
		return before, []byte(strconv.Itoa(n + 1)), nil
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				if err := Update(path, 0o600, increment); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if got, _ := os.ReadFile(path); string(got) != "80" {
		t.Fatalf("after 80 increments the file holds %q", got)
	}

	if err := Update(path, 0o600, func() ([]byte, []byte, error) { return nil, nil, nil }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "80" {
		t.Fatalf("an edit with nothing to write changed the file to %q", got)
	}

	// Another writer that does not take the lock changes the file once,
	// after the first read: the edit runs again from its content.
	runs := 0
	err := Update(path, 0o600, func() ([]byte, []byte, error) {
		before, after, err := increment()
		if runs++; runs == 1 {
			if err := os.WriteFile(path, []byte("100"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return before, after, err
	})
	if err != nil || runs != 2 {
		t.Fatalf("Update: %v after %d runs, want a second run", err, runs)
	}
	if got, _ := os.ReadFile(path); string(got) != "101" {
		t.Fatalf("the retried edit wrote %q, want 101", got)
	}

	// A file that changes on every try gives up, naming the file.
	err = Update(path, 0o600, func() ([]byte, []byte, error) { return []byte("stale"), []byte("x"), nil })
	var ue *UpdateError
	if !errors.As(err, &ue) || ue.Op != "race" {
		t.Fatalf("a file that never holds what was read: %v, want a race error", err)
	}
	if got := WrapUpdate("count "+path, err).Error(); got != "count "+path+": "+errRaced.Error() {
		t.Errorf("WrapUpdate: %q", got)
	}

	boom := errors.New("boom")
	if err := Update(path, 0o600, func() ([]byte, []byte, error) { return nil, nil, boom }); err != boom {
		t.Errorf("an edit's error came back as %v", err)
	}
}

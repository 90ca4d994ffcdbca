package action

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// TestToggleAndProfiles: disable writes Claude Code's switch (a dry run
// only its diff); a profile saved then records it, and using the profile
// after the skill was turned back on turns it off again.
func TestToggleAndProfiles(t *testing.T) {
	b := newBox(t)
	b.writeSkills(t)
	c := b.config(t)
	ctx := context.Background()
	settings := filepath.Join(b.home, ".claude", "settings.json")
	off := ToggleRequest{Skills: []string{"claude:pdf"}, DryRun: true}
	off.Agents = []string{"claude"}

	rep, err := Toggle(ctx, c, off)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Changed != 1 || len(rep.Files) != 1 || rep.Files[0].Path != settings || !strings.Contains(rep.Files[0].Diff, "skillOverrides") {
		t.Fatalf("dry run: %+v, want one change, the diff of %s", rep, settings)
	}
	if _, err := os.Stat(settings); err == nil {
		t.Fatal("a dry run wrote the settings")
	}
	off.DryRun = false
	if rep, err = Toggle(ctx, c, off); err != nil || rep.Changed != 1 || rep.ApplyErr != nil {
		t.Fatalf("disable: %+v, %v", rep, err)
	}
	if data, _ := os.ReadFile(settings); !strings.Contains(string(data), `"pdf": "off"`) {
		t.Errorf("settings after disable:\n%s", data)
	}

	saved, err := SaveProfile(ctx, c, SaveProfileRequest{Name: "focus", Agents: []string{"claude"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(c.ProfileDir(), "profiles", "focus.json"); saved.File != want || saved.Name != "focus" {
		t.Errorf("saved %s as %q, want %s", saved.File, saved.Name, want)
	}
	on := off
	on.On = true
	if rep, err = Toggle(ctx, c, on); err != nil || rep.Changed != 1 {
		t.Fatalf("enable: %+v, %v", rep, err)
	}
	if rep, err = UseProfile(ctx, c, UseProfileRequest{Name: "focus"}); err != nil || rep.Changed != 1 {
		t.Fatalf("profile use: %+v, %v; want pdf turned off again", rep, err)
	}
	if data, _ := os.ReadFile(settings); !strings.Contains(string(data), `"pdf": "off"`) {
		t.Errorf("settings after profile use:\n%s", data)
	}
	profiles, err := ListProfiles(b.process())
	if err != nil || len(profiles) != 1 || profiles[0].Name != "focus" {
		t.Errorf("profiles %v, %v; want focus", profiles, err)
	}
	if _, err := UseProfile(ctx, c, UseProfileRequest{Name: "nosuch"}); err == nil || IsUsage(err) {
		t.Errorf("an unknown profile: %v, want a failure", err)
	}
	bad := off
	bad.Agents = []string{"vim"}
	if _, err := Toggle(ctx, c, bad); !IsUsage(err) {
		t.Errorf("an unknown agent: %v, want a usage error", err)
	}
}

// TestListProfilesNone is an empty list, never nil (--json prints []).
func TestListProfilesNone(t *testing.T) {
	b := newBox(t)
	profiles, err := ListProfiles(b.process())
	if err != nil || profiles == nil || len(profiles) != 0 {
		t.Errorf("got %v, %v; want an empty list", profiles, err)
	}
}

// TestShowConfig redacts secrets in the tree and the flat view alike,
// names the layer of each key, and writes durations as ccski.yaml does.
func TestShowConfig(t *testing.T) {
	b := newBox(t)
	b.vars["CCSKI_MCP__AUTH_TOKEN"] = "s3cret"
	v := ShowConfig(b.config(t))
	mcp, _ := v.Config["mcp"].(map[string]any)
	if mcp["auth_token"] == "s3cret" || v.Flat["mcp.auth_token"] == "s3cret" ||
		len(v.Redacted) != 1 || v.Redacted[0] != "mcp.auth_token" {
		t.Errorf("the token was not redacted: tree %v, flat %v, redacted %v", mcp["auth_token"], v.Flat["mcp.auth_token"], v.Redacted)
	}
	if got := v.Sources["mcp.auth_token"]; got != "env CCSKI_MCP__AUTH_TOKEN" {
		t.Errorf("source of mcp.auth_token %q", got)
	}
	if got := mcp["refresh_interval"]; got != "30s" {
		t.Errorf("refresh_interval in the tree is %#v, want \"30s\"", got)
	}
	if v.Files == nil || len(v.Keys) != len(v.Flat) || !slices.IsSorted(v.Keys) {
		t.Errorf("files %v, %d keys of %d, sorted %v", v.Files, len(v.Keys), len(v.Flat), slices.IsSorted(v.Keys))
	}
}

// TestSaveProfileErrors checks which failures of profile save are usage
// errors (exit 2): a bad name is; a profile that cannot be written is not.
func TestSaveProfileErrors(t *testing.T) {
	b := newBox(t)
	ctx := context.Background()
	var ue *UsageError
	if _, err := SaveProfile(ctx, b.config(t), SaveProfileRequest{Name: "../up"}); !errors.As(err, &ue) {
		t.Errorf("a bad name: %v, want a usage error", err)
	}
	// The profiles folder is a file: the profile cannot be written.
	testfs.Write(t, b.root, map[string]string{"home/.config/ccski/profiles": "not a folder"})
	_, err := SaveProfile(ctx, b.config(t), SaveProfileRequest{Name: "focus"})
	if err == nil || errors.As(err, &ue) {
		t.Errorf("an unwritable profile folder: %v, want a failure that is not a usage error", err)
	}
}

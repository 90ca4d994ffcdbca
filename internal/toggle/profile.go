package toggle

// Profiles: a named record of which skills (and plugins) are on for each
// host, saved in ccski's user config folder and applied later with the
// same switches as enable and disable.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/userdirs"
	"github.com/ccski/ccski/pipeline"
)

// Profile is a named set of skill states per host.
type Profile struct {
	Name  string    `json:"name"`
	Saved time.Time `json:"saved"`
	// Hosts maps a host's name to its part of the profile.
	Hosts map[string]*HostProfile `json:"hosts"`
	// Fallback records the host-neutral switch of the skills: whether
	// each one's SKILL.md is renamed .SKILL.md. A profile saved without
	// it renames nothing when used.
	Fallback []FallbackState `json:"fallback,omitempty"`
}

// FallbackState is whether a skill's folder holds .SKILL.md (Off) or
// SKILL.md. A skill is found again by its folder, else by its id.
type FallbackState struct {
	ID  string `json:"id"`
	Dir string `json:"dir"`
	Off bool   `json:"off"`
}

// HostProfile is what a profile says for one host.
type HostProfile struct {
	// Skills are the skills the host reads, with their mode (on, off,
	// name-only, ...), sorted by id.
	Skills []SkillState `json:"skills"`
	// Plugins maps a plugin ("plugin@marketplace") to whether it is on.
	Plugins map[string]bool `json:"plugins,omitempty"`
}

// SkillState is one skill's mode for a host. A skill is found again by
// its SKILL.md file, else by its id.
type SkillState struct {
	ID   string `json:"id"`
	File string `json:"file"`
	Mode string `json:"mode"`
}

// Counts returns how many skills the host part has on and not on.
func (h *HostProfile) Counts() (on, other int) {
	for _, s := range h.Skills {
		if s.Mode == pipeline.ModeOn {
			on++
		} else {
			other++
		}
	}
	return on, other
}

// Capture records the state of every skill and plugin of snap that the
// named hosts read, and the host-neutral switch (SKILL.md or .SKILL.md)
// of those skills; with every host named, also of the skills no host
// with a switch of its own reads.
func (t *Toggler) Capture(name string, hosts []string) *Profile {
	p := &Profile{Name: name, Saved: time.Now().UTC().Truncate(time.Second), Hosts: map[string]*HostProfile{}}
	part := func(h string) *HostProfile {
		if p.Hosts[h] == nil {
			p.Hosts[h] = &HostProfile{Skills: []SkillState{}}
		}
		return p.Hosts[h]
	}
	for _, h := range hosts {
		part(h)
	}
	seen, dirs := map[string]bool{}, map[string]bool{}
	everyHost := true
	for _, h := range t.hosts {
		everyHost = everyHost && slices.Contains(hosts, h.Name)
	}
	for _, r := range t.snap.All {
		if r.IsCommand() {
			continue
		}
		if r.Plugin == nil && !dirs[r.Dir] && (everyHost || slices.ContainsFunc(r.Hosts, func(h string) bool { return slices.Contains(hosts, h) })) {
			dirs[r.Dir] = true
			p.Fallback = append(p.Fallback, FallbackState{ID: r.ID, Dir: r.Dir, Off: r.Disabled})
		}
		for _, h := range t.hostsOf(r) {
			if !slices.Contains(hosts, h) {
				continue
			}
			if r.Plugin != nil {
				if part(h).Plugins == nil {
					part(h).Plugins = map[string]bool{}
				}
				part(h).Plugins[r.Plugin.Key()] = true
				continue
			}
			if key := h + "\x00" + r.File; !seen[key] {
				seen[key] = true
				part(h).Skills = append(part(h).Skills, SkillState{ID: r.ID, File: r.File, Mode: modeFor(r, h)})
			}
		}
	}
	for _, dp := range t.snap.Disabled {
		if dp.Refused == "" && slices.Contains(hosts, dp.Provider) { // a refused plugin is enabled
			if part(dp.Provider).Plugins == nil {
				part(dp.Provider).Plugins = map[string]bool{}
			}
			part(dp.Provider).Plugins[dp.Key()] = false
		}
	}
	for _, hp := range p.Hosts {
		sort.Slice(hp.Skills, func(i, j int) bool { return hp.Skills[i].ID < hp.Skills[j].ID })
	}
	sort.Slice(p.Fallback, func(i, j int) bool { return p.Fallback[i].ID < p.Fallback[j].ID })
	return p
}

// modeFor is r's mode for host h: its switch's, or on.
func modeFor(r *pipeline.Record, h string) string {
	if s, ok := r.SwitchFor(h); ok {
		return s.Mode
	}
	return pipeline.ModeOn
}

// Use switches every skill and plugin the profile names whose state
// differs, for the hosts the profile covers, writing at scope ("" for
// each host's default), and renames SKILL.md or .SKILL.md where the
// profile's fallback state differs (and only there). It returns how many
// skills those hosts read that the profile does not name: they are left
// as they are.
func (t *Toggler) Use(p *Profile, scope string) (left int) {
	x := t.profileIndex()
	named := map[string]bool{}
	for _, h := range t.hosts {
		hp, ok := p.Hosts[h.Name]
		if !ok {
			continue
		}
		for _, s := range hp.Skills {
			r := x.find(t.snap, s)
			if r == nil {
				t.results = append(t.results, Result{Skill: s.ID, Host: h.Name, Status: Skipped,
					Note: fmt.Sprintf("not found on this machine (%s)", s.File)})
				continue
			}
			named[h.Name+"\x00"+r.File] = true
			if modeFor(r, h.Name) == s.Mode {
				continue
			}
			t.Record(r, Request{On: s.Mode == pipeline.ModeOn, Agents: []string{h.Name}, Mode: s.Mode, Scope: scope, KeepFile: true})
		}
		keys := make([]string, 0, len(hp.Plugins))
		for k := range hp.Plugins {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, key := range keys {
			want := hp.Plugins[key]
			on, found := x.pluginState(t.snap, h.Name, key)
			switch {
			case !found:
				t.results = append(t.results, Result{Skill: key, Host: h.Name, Status: Skipped,
					Note: "plugin not installed on this machine"})
			case on != want:
				if want {
					if err := t.admitPlugin(h.Name, key, disabledSkills(t.snap, h.Name, key)); err != nil {
						t.results = append(t.results, Result{Skill: key, Host: h.Name, Status: Failed, Error: err.Error()})
						continue
					}
				}
				t.plugin(key, h, key, want, scope, "", pluginNote(key, want, nil, nil))
			}
		}
	}
	for _, f := range p.Fallback {
		r := x.findDir(t.snap, f)
		switch {
		case r == nil:
			t.results = append(t.results, Result{Skill: f.ID, Status: Skipped, Setting: FallbackSetting,
				Note: fmt.Sprintf("not found on this machine (%s)", f.Dir)})
		case r.Disabled != f.Off:
			if !f.Off && t.Admit != nil {
				if err := t.Admit(r); err != nil {
					t.results = append(t.results, Result{Skill: r.ID, Status: Failed, Setting: FallbackSetting, Error: err.Error()})
					continue
				}
			}
			t.rename(r, !f.Off, "")
		}
	}
	for _, r := range t.snap.All {
		if r.IsCommand() || r.Plugin != nil {
			continue
		}
		for _, h := range r.Hosts {
			if _, covered := p.Hosts[h]; covered && !named[h+"\x00"+r.File] {
				left++
				break
			}
		}
	}
	return left
}

// profileIndex is what Use looks profile entries up in, built once: the
// first skill of each file, the first non-plugin skill of each folder, and
// the plugins installed for each host.
type profileIndex struct {
	byFile, byDir map[string]*pipeline.Record
	plugins       map[string]bool // host NUL plugin key
}

func (t *Toggler) profileIndex() profileIndex {
	x := profileIndex{byFile: map[string]*pipeline.Record{}, byDir: map[string]*pipeline.Record{}, plugins: map[string]bool{}}
	for _, r := range t.snap.All {
		if r.IsCommand() {
			continue
		}
		if _, ok := x.byFile[r.File]; !ok {
			x.byFile[r.File] = r
		}
		if _, ok := x.byDir[r.Dir]; !ok && r.Plugin == nil {
			x.byDir[r.Dir] = r
		}
	}
	for _, r := range t.snap.All {
		if r.Plugin != nil {
			x.plugins[r.Agent+"\x00"+r.Plugin.Key()] = true
		}
	}
	return x
}

// find returns the record s names: by file, else by id.
func (x profileIndex) find(snap *pipeline.Snapshot, s SkillState) *pipeline.Record {
	if r := x.byFile[s.File]; r != nil {
		return r
	}
	if r := snap.ByID(s.ID); r != nil && !r.IsCommand() {
		return r
	}
	return nil
}

// findDir returns the skill f names: by folder, else by id.
func (x profileIndex) findDir(snap *pipeline.Snapshot, f FallbackState) *pipeline.Record {
	if r := x.byDir[f.Dir]; r != nil {
		return r
	}
	if r := snap.ByID(f.ID); r != nil && !r.IsCommand() && r.Plugin == nil {
		return r
	}
	return nil
}

// pluginState says whether host h's plugin key is on, and whether it is
// installed at all.
func (x profileIndex) pluginState(snap *pipeline.Snapshot, h, key string) (on, found bool) {
	if x.plugins[h+"\x00"+key] {
		return true, true
	}
	for _, dp := range snap.Disabled {
		if dp.Provider == h && dp.Key() == key && dp.Refused == "" {
			return false, true
		}
	}
	return false, false
}

// disabledSkills are the skill names of the plugin key of host h when the
// settings turn it off (pipeline.DisabledPlugin.Skills): its skills were
// not discovered.
func disabledSkills(snap *pipeline.Snapshot, h, key string) []string {
	for _, dp := range snap.Disabled {
		if dp.Provider == h && dp.Key() == key {
			return dp.Skills
		}
	}
	return nil
}

var profileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// CheckProfileName refuses a profile name other than letters, digits, ".",
// "_" and "-", at most 100 of them, starting with a letter or digit.
func CheckProfileName(name string) error {
	if !profileName.MatchString(name) || len(name) > 100 {
		return fmt.Errorf("invalid profile name %q: use letters, digits, '.', '_' and '-'", name)
	}
	return nil
}

// ProfileFile is the file of profile name in ccski's user config folder
// dir: profiles/<name>.json. A name other than letters, digits, ".", "_"
// and "-" is an error.
func ProfileFile(dir, name string) (string, error) {
	if err := CheckProfileName(name); err != nil {
		return "", err
	}
	if dir == "" {
		return "", userdirs.ErrNoConfig
	}
	return filepath.Join(dir, "profiles", name+".json"), nil
}

// SaveProfile writes p to its file in dir, atomically.
func SaveProfile(dir string, p *Profile) (string, error) {
	file, err := ProfileFile(dir, p.Name)
	if err != nil {
		return "", err
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return "", err
	}
	if err := safefile.WriteAtomic(file, append(data, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("cannot save the profile: %w", err)
	}
	return file, nil
}

// LoadProfile reads the profile name from dir.
func LoadProfile(dir, name string) (*Profile, error) {
	file, err := ProfileFile(dir, name)
	if err != nil {
		return nil, err
	}
	data, err := safefile.Read(file, 16*safefile.MiB)
	if errors.Is(err, fs.ErrNotExist) {
		names, _ := ListProfiles(dir)
		var list []string
		for _, p := range names {
			list = append(list, p.Name)
		}
		hint := "save one with `ccski profile save " + name + "`"
		if len(list) > 0 {
			hint = "saved profiles: " + strings.Join(list, ", ")
		}
		return nil, fmt.Errorf("no profile %q (%s); %s", name, file, hint)
	}
	if err != nil {
		return nil, err
	}
	var p Profile
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s is not a ccski profile: %w", file, err)
	}
	if p.Hosts == nil {
		p.Hosts = map[string]*HostProfile{}
	}
	p.Name = name
	return &p, nil
}

// ListProfiles reads every profile in dir, sorted by name. A file that is
// not a profile is skipped.
func ListProfiles(dir string) ([]*Profile, error) {
	ents, err := os.ReadDir(filepath.Join(dir, "profiles"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Profile
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		if p, err := LoadProfile(dir, name); err == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

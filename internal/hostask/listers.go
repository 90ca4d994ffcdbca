package hostask

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// GeminiCommand and CopilotCommand are what Gemini and Copilot run.
const (
	GeminiCommand  = "gemini skills list"
	CopilotCommand = "copilot skill list"
)

// Gemini runs `gemini skills list` (Gemini CLI 0.61) in dir with env (nil:
// this process's) and returns the skills it loads, its built-in ones left
// out. Gemini CLI skips a project's skills while the project's folder is
// not trusted (~/.gemini/trustedFolders.json).
func Gemini(ctx context.Context, bin, dir string, env []string) ([]Listed, error) {
	out, err := run(ctx, bin, "gemini", dir, env, "skills", "list")
	if err != nil {
		return nil, err
	}
	return ParseGemini(out), nil
}

// geminiEntry is the first line of a skill in `gemini skills list`:
// "name [Enabled]", "name [Disabled]", "name [Enabled] [Built-in]".
var geminiEntry = regexp.MustCompile(`^(\S+) \[(Enabled|Disabled)\]( \[Built-in\])?\s*$`)

// ParseGemini reads the output of `gemini skills list`: the enabled
// skills that are not built in, with their description and file.
func ParseGemini(out []byte) []Listed {
	res := []Listed{}
	keep := false
	for line := range strings.Lines(string(out)) {
		line = strings.TrimRight(line, "\r\n")
		if m := geminiEntry.FindStringSubmatch(line); m != nil {
			keep = m[2] == "Enabled" && m[3] == ""
			if keep {
				res = append(res, Listed{Name: m[1]})
			}
			continue
		}
		if !keep || len(res) == 0 {
			continue
		}
		t := strings.TrimSpace(line)
		if d, ok := strings.CutPrefix(t, "Description:"); ok {
			res[len(res)-1].Description = strings.TrimSpace(d)
		} else if f, ok := strings.CutPrefix(t, "Location:"); ok {
			res[len(res)-1].File = strings.TrimSpace(f)
		}
	}
	return res
}

// Copilot runs `copilot skill list` (GitHub Copilot CLI 1.0) in dir with
// env and returns the skills it lists, its built-in ones left out.
func Copilot(ctx context.Context, bin, dir string, env []string) ([]Listed, error) {
	out, err := run(ctx, bin, "copilot", dir, env, "skill", "list")
	if err != nil {
		return nil, err
	}
	return ParseCopilot(out), nil
}

// ParseCopilot reads the output of `copilot skill list`: sections
// ("Project skills:", "Personal skills:", "Builtin skills:", ...) of
// "  name - description" lines; the built-in section is left out.
func ParseCopilot(out []byte) []Listed {
	res := []Listed{}
	section := ""
	for line := range strings.Lines(string(out)) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasSuffix(line, "skills:") && !strings.HasPrefix(line, " "):
			section = strings.ToLower(strings.TrimSuffix(line, " skills:"))
		case strings.HasPrefix(line, "  ") && section != "" && section != "builtin":
			name, desc, _ := strings.Cut(strings.TrimSpace(line), " - ")
			res = append(res, Listed{Name: name, Description: desc})
		}
	}
	return res
}

// CommandTimeout is how long a host's command may run before it is
// stopped: a host waiting for a login or for the network would otherwise
// hold up the caller (doctor --ask-host) for good.
const CommandTimeout = 60 * time.Second

// commandTimeout is CommandTimeout, and waitDelay how long a stopped
// command's children may keep its output open before it is closed on
// them; tests shorten both.
var (
	commandTimeout = CommandTimeout
	waitDelay      = 5 * time.Second
)

// run runs bin (def when "") with args in dir and returns its stdout. It
// stops the command after commandTimeout.
func run(ctx context.Context, bin, def, dir string, env []string, args ...string) ([]byte, error) {
	if bin == "" {
		bin = def
	}
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = waitDelay
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	what := def + " " + strings.Join(args, " ")
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("%s in %s gave no answer within %s and was stopped: is it waiting for a login "+
			"or for the network? Run it yourself to see", what, dir, commandTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("%s in %s: %w: %s", what, dir, err, lastLine(stderr.String()))
	}
	return stdout.Bytes(), nil
}

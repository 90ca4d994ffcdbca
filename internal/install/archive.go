package install

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/ccski/ccski/internal/manifest"
)

// This file unpacks the archives of HTTP sources (.zip, .tar.gz, .tgz)
// into a fresh folder, within Limits, as the Agent Skills Discovery RFC's
// "Archive Safety" asks: only regular files and folders, every path
// relative and staying inside, no links of either kind. An entry that
// breaks a rule fails the whole archive, naming the entry; nothing of a
// refused archive is used.

// archiveFormat is how an archive is packed.
type archiveFormat string

const (
	formatZip   archiveFormat = "zip"
	formatTarGz archiveFormat = "tar.gz"
)

// sniffArchive tells the format of an archive by its first bytes, which
// decide whatever the server's Content-Type or the URL say; "" when it
// is neither.
func sniffArchive(data []byte) archiveFormat {
	switch {
	case bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("PK\x05\x06")):
		return formatZip
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		return formatTarGz
	}
	return ""
}

// unpacker writes the entries of one archive below dest within lim.
type unpacker struct {
	name  string // the archive, for errors
	dest  string
	lim   Limits
	files int
	bytes int64
}

// unpack writes the archive data (fetched from name) into the folder
// dest, which must not exist yet.
func unpack(data []byte, name, dest string, lim Limits) error {
	_, err := unpackCounted(data, name, dest, lim)
	return err
}

// unpackCounted is unpack, returning the bytes it wrote.
func unpackCounted(data []byte, name, dest string, lim Limits) (int64, error) {
	u := &unpacker{name: name, dest: dest, lim: lim.withDefaults()}
	if err := os.Mkdir(dest, 0o755); err != nil {
		return 0, err
	}
	var err error
	switch sniffArchive(data) {
	case formatZip:
		err = u.zip(data)
	case formatTarGz:
		err = u.tarGz(data)
	default:
		err = fmt.Errorf("archive %s is neither a .zip nor a .tar.gz (by its first bytes): ccski unpacks those two", name)
	}
	return u.bytes, err
}

// refuse is the error for entry of the archive.
func (u *unpacker) refuse(entry, why string) error {
	return fmt.Errorf("archive %s: entry %q %s: ccski refused the whole archive and wrote nothing of it", u.name, entry, why)
}

// target checks an entry's path and returns where it goes.
func (u *unpacker) target(entry string) (string, error) {
	name := strings.TrimPrefix(entry, "./")
	switch {
	case strings.ContainsFunc(entry, unicode.IsControl):
		return "", u.refuse(entry, "has a control character in its path")
	case strings.Contains(entry, `\`):
		return "", u.refuse(entry, "has a backslash in its path (a Windows path, or a way out)")
	case strings.HasPrefix(entry, "/") || filepath.IsAbs(entry) || len(entry) > 1 && entry[1] == ':':
		return "", u.refuse(entry, "has an absolute path")
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return "", u.refuse(entry, "leads out of the archive (..)")
		}
	}
	clean := path.Clean(name)
	if clean == "." || clean == "" {
		return "", nil // the root itself
	}
	if !filepath.IsLocal(filepath.FromSlash(clean)) {
		return "", u.refuse(entry, "does not stay inside the archive")
	}
	return filepath.Join(u.dest, filepath.FromSlash(clean)), nil
}

// count adds an entry, failing past MaxFiles.
func (u *unpacker) count(entry string) error {
	u.files++
	if u.files > u.lim.MaxFiles {
		return u.refuse(entry, fmt.Sprintf("is past the limit of %d entries (install.max_files)", u.lim.MaxFiles))
	}
	return nil
}

// write writes one regular file from r (manifest.WriteNew: the mode by
// manifest.Mode, executable when mode has an x bit), counting its bytes
// against MaxUnpacked whatever its header says.
func (u *unpacker) write(entry, dst string, mode fs.FileMode, r io.Reader) error {
	left := u.lim.MaxUnpacked - u.bytes
	rel, err := filepath.Rel(u.dest, dst)
	if err != nil {
		return err
	}
	n, err := manifest.WriteNew(dst, filepath.ToSlash(rel), mode&0o111 != 0, io.LimitReader(r, left+1))
	u.bytes += n
	if errors.Is(err, fs.ErrExist) {
		return u.refuse(entry, "is in the archive twice (or is a file where a folder is)")
	}
	if err != nil {
		return fmt.Errorf("archive %s: entry %q: %w", u.name, entry, err)
	}
	if n > left {
		return u.refuse(entry, fmt.Sprintf("takes the unpacked files past the limit of %d bytes (install.max_unpacked)",
			u.lim.MaxUnpacked))
	}
	return nil
}

// zip unpacks a zip archive.
func (u *unpacker) zip(data []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("archive %s is no valid zip: %w", u.name, err)
	}
	if len(zr.File) > u.lim.MaxFiles {
		return fmt.Errorf("archive %s has %d entries, over the limit of %d entries (install.max_files): ccski refused it and wrote nothing of it", u.name, len(zr.File), u.lim.MaxFiles)
	}
	for _, f := range zr.File {
		if err := u.count(f.Name); err != nil {
			return err
		}
		dst, err := u.target(f.Name)
		if err != nil {
			return err
		}
		mode := f.Mode()
		switch {
		case mode&fs.ModeSymlink != 0:
			return u.refuse(f.Name, "is a symlink (ccski installs no links from archives)")
		case dst == "":
		case mode.IsDir() || strings.HasSuffix(f.Name, "/"):
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
		case mode.IsRegular():
			r, err := f.Open()
			if err != nil {
				return fmt.Errorf("archive %s: entry %q: %w", u.name, f.Name, err)
			}
			err = u.write(f.Name, dst, mode, r)
			r.Close()
			if err != nil {
				return err
			}
		default:
			return u.refuse(f.Name, "is no regular file or folder ("+mode.Type().String()+")")
		}
	}
	return nil
}

// tarGz unpacks a gzip-compressed tar archive.
func (u *unpacker) tarGz(data []byte) error {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("archive %s is no valid gzip: %w", u.name, err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("archive %s is no valid tar: %w", u.name, err)
		}
		switch h.Typeflag {
		case tar.TypeXGlobalHeader, tar.TypeXHeader, tar.TypeGNULongName, tar.TypeGNULongLink:
			continue // metadata, not entries (the reader applies them)
		}
		if err := u.count(h.Name); err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeSymlink:
			return u.refuse(h.Name, "is a symlink (to "+h.Linkname+"; ccski installs no links from archives)")
		case tar.TypeLink:
			return u.refuse(h.Name, "is a hard link (to "+h.Linkname+"; ccski installs no links from archives)")
		}
		dst, err := u.target(h.Name)
		if err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if dst != "" {
				if err := os.MkdirAll(dst, 0o755); err != nil {
					return err
				}
			}
		case tar.TypeReg:
			if dst == "" {
				return u.refuse(h.Name, "is a file at the archive's root path")
			}
			if err := u.write(h.Name, dst, fs.FileMode(h.Mode), tr); err != nil {
				return err
			}
		default:
			return u.refuse(h.Name, fmt.Sprintf("is no regular file or folder (tar type %q)", h.Typeflag))
		}
	}
}

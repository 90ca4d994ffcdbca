// Command upload copies a directory tree to a GCS bucket and verifies each
// object's CRC32C. Credentials come from Application Default Credentials.
package main

import (
	"context"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"

	"cloud.google.com/go/storage"
)

func main() {
	bucket := flag.String("bucket", "", "destination bucket")
	dir := flag.String("dir", "build", "directory to upload")
	prefix := flag.String("prefix", "", "object name prefix")
	flag.Parse()
	if *bucket == "" {
		log.Fatal("upload: -bucket is required")
	}

	ctx := context.Background()
	client, err := storage.NewClient(ctx)
	if err != nil {
		log.Fatalf("upload: storage client: %v", err)
	}
	defer client.Close()
	b := client.Bucket(*bucket)
	table := crc32.MakeTable(crc32.Castagnoli)

	err = filepath.WalkDir(*dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(*dir, p)
		name := path.Join(*prefix, filepath.ToSlash(rel))
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()

		h := crc32.New(table)
		w := b.Object(name).NewWriter(ctx)
		w.ContentType = mime.TypeByExtension(filepath.Ext(p))
		w.CacheControl = "public, max-age=300"
		if strings.HasPrefix(rel, "assets"+string(filepath.Separator)) {
			w.CacheControl = "public, max-age=31536000, immutable"
		}
		if _, err := io.Copy(io.MultiWriter(w, h), f); err != nil {
			w.Close()
			return fmt.Errorf("%s: %w", p, err)
		}
		if err := w.Close(); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if got := w.Attrs().CRC32C; got != h.Sum32() {
			return fmt.Errorf("%s: CRC32C mismatch (server %08x, local %08x)", p, got, h.Sum32())
		}
		fmt.Printf("gs://%s/%s\n", *bucket, name)
		return nil
	})
	if err != nil {
		log.Fatalf("upload: %v", err)
	}
}

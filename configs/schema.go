package configs

import _ "embed"

// Schema is the JSON Schema (draft 2020-12) of ccski.yaml and of the user
// config. Editors can use it for completion and checks; Load does the same
// checks itself.
//
//go:embed ccski.schema.json
var Schema []byte

package cursor

import "github.com/ccski/ccski/providers"

// InstallFolder is where `ccski install` puts skills for Cursor, which
// reads only its own folder.
func InstallFolder() providers.InstallFolder {
	return providers.InstallFolder{Agent: Name, Title: "Cursor", Project: Folder, User: providers.UserFolder(Folder)}
}

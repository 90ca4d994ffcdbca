// Package arch holds no code: its tests keep the module's shape as the
// documents describe it. The layers of internal/README.md hold (a package
// imports only packages of its own layer or a lower one, and every package
// stands in a layer), the Layout table of README.md lists every package,
// and Go code stands only under the seven top-level doors and internal/.
package arch

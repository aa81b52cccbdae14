// Package config reads Paneflow's configuration file, paneflow.toml, and
// watches it for changes.
//
// The file is optional and forgiving: a missing file means defaults, and a
// key that is unknown, of the wrong type or out of range produces a
// warning and keeps its default, so a typo never stops Paneflow from
// starting. Warnings name the key and say what was wrong. Every key is
// documented on the field of [Config] (or [Terminal]) that holds it,
// with its TOML name, default and accepted range.
//
// [Watch] calls back with the new configuration whenever the file is
// created, edited, replaced (editors often write a temporary file and
// rename it over the original) or removed (which means defaults again),
// after changes have settled and only when the bytes really changed.
//
// [Save] writes the settings view's changes into the file, changing only
// their values (the user's comments and layout stay). The package applies
// nothing: the desktop app and the headless core decide what a change
// means for them (some settings only affect panes created afterwards).
//
// # Concurrency
//
// [Load], [Parse] and [Default] are pure functions of their inputs and
// safe for concurrent use. [Save] is safe to call concurrently with
// readers (they see the old file or the new one), not with another Save
// of the same file (the last one wins). [Watch] runs its callback on the
// goroutine that called it, one call at a time.
package config

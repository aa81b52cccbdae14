#!/bin/sh
# install.sh installs Paneflow from this unpacked tarball, for Linux
# distributions without a .deb or .rpm.
#
#   ./install.sh [--prefix DIR]             install (default: /usr/local as
#                                           root, else ~/.local)
#   ./install.sh --uninstall [--prefix DIR] remove what install.sh installed
#
# It copies bin/ to DIR/bin and share/ to DIR/share, points the .desktop
# entry's Exec line at DIR/bin/paneflow-gui, and lists every file it wrote
# in DIR/share/paneflow/installed-files, which --uninstall removes (and
# nothing else). It refreshes the icon cache when the prefix has one; the
# menu needs no cache update (the entry declares no MIME types).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" -eq 0 ]; then prefix=/usr/local; else prefix=$HOME/.local; fi
uninstall=false
while [ $# -gt 0 ]; do
	case $1 in
	--prefix)
		[ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }
		prefix=$2
		shift 2
		;;
	--prefix=*)
		prefix=${1#--prefix=}
		shift
		;;
	--uninstall)
		uninstall=true
		shift
		;;
	-h | --help)
		sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "install.sh: unknown argument '$1' (see --help)" >&2
		exit 2
		;;
	esac
done

manifest=$prefix/share/paneflow/installed-files

refresh() {
	if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$prefix/share/icons/hicolor/index.theme" ]; then
		gtk-update-icon-cache -q -t "$prefix/share/icons/hicolor" || true
	fi
}

if $uninstall; then
	[ -f "$manifest" ] || { echo "install.sh: nothing to uninstall: $manifest does not exist" >&2; exit 1; }
	while IFS= read -r f; do
		rm -f "$f"
	done <"$manifest"
	rm -f "$manifest"
	rmdir "$prefix/share/paneflow" 2>/dev/null || true
	refresh
	echo "Paneflow removed from $prefix"
	exit 0
fi

mkdir -p "$prefix/share/paneflow"
tmp=$manifest.tmp
: >"$tmp"
(cd "$here" && find bin share -type f) | while IFS= read -r f; do
	dst=$prefix/$f
	mkdir -p "$(dirname "$dst")"
	case $f in
	bin/*) mode=0755 ;;
	*) mode=0644 ;;
	esac
	case $f in
	share/applications/*.desktop)
		sed "s|^Exec=paneflow-gui|Exec=$prefix/bin/paneflow-gui|" "$here/$f" >"$dst.new"
		;;
	*) cp "$here/$f" "$dst.new" ;;
	esac
	chmod "$mode" "$dst.new"
	mv -f "$dst.new" "$dst"
	echo "$dst" >>"$tmp"
done
mv -f "$tmp" "$manifest"
refresh
echo "Paneflow installed in $prefix (run $prefix/bin/paneflow, or Paneflow from the applications menu)"
case :$PATH: in
*:"$prefix/bin":*) ;;
*) echo "note: $prefix/bin is not in PATH" ;;
esac

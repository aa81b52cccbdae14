#!/usr/bin/env bash
# package.sh builds Paneflow's installable bundles into dist/ and checks them.
# `make package` runs `linux windows darwin`; `make test` runs `linux check`
# (scripts/check.sh, step "package").
#
#   packaging/package.sh TARGET...
#
# Targets, run in the order given:
#   linux    dist/paneflow_<ver>_amd64.deb, dist/paneflow-<ver>-1.x86_64.rpm
#            (nfpm) and dist/paneflow-<ver>-linux-amd64.tar.xz (install.sh
#            inside): the client, server, desktop app and every other cmd/
#            binary in /usr/bin, their manual pages, the .desktop entry,
#            hicolor icons, AppStream metainfo, copyright (with the licence
#            of every Go module linked) and changelog. The desktop app is
#            $PANEFLOW_GUI_BIN (the PIE build `make gui` makes on Linux and
#            `make test` builds once per run), else bin/paneflow-gui via
#            `make gui`; the rest are static nogui builds.
#   check    validates what linux built: lintian (errors fail), the .desktop
#            and metainfo validators, rpm -qip and the .rpm's file list, the
#            tarball's installer, then installs the .deb with apt-get (root),
#            runs the CLI, `paneflow serve` and one verb, starts the desktop
#            app under Xvfb from the installed .desktop Exec line and finds
#            its window, and purges it leaving no file behind.
#   windows  dist/windows-amd64/: static nogui .exe files, and with
#            x86_64-w64-mingw32-gcc the cgo desktop app, a version resource
#            and icon linked in through a .syso; then the NSIS installer
#            dist/paneflow-<ver>-windows-amd64-setup.exe (makensis) and
#            the MSI dist/paneflow-<ver>-windows-amd64.msi (wixl, read back
#            with msiinfo), signed with osslsigncode when PANEFLOW_SIGN_PFX
#            (and PANEFLOW_SIGN_PASS) name a certificate.
#   wine     smoke-tests the installers windows built under Wine
#            (packaging/windows/wine-check.sh): silent install, PATH,
#            paneflow version, serve and verbs over the named pipe,
#            uninstall, and the MSI's install and uninstall; it names what
#            Wine does differently from Windows.
#   darwin   dist/darwin-universal/Paneflow.app: nogui universal (arm64 +
#            x86_64) binaries, Info.plist and the .icns icon, structure
#            checked; the desktop app itself needs a macOS runner (the
#            workflow in .github/workflows/package.yml builds it there and
#            passes it in as PANEFLOW_DARWIN_GUI, a universal binary; it
#            is required on macOS).
#   actionlint  checks .github/workflows/*.yml (and their run: scripts,
#            with shellcheck).
#   selftest checks the package version mapping (pkg_version) and its
#            order under dpkg and rpm.
#
# The version is `git describe --tags --always --dirty` (what the binaries
# print); the package version is derived from it (see pkg_version).
# Tools that are not Go modules come from Debian (scripts/deps.sh, group
# package); nfpm and actionlint are Go tools pinned in packaging/tools/go.mod,
# apart from the main module's dependencies.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
export PATH="$PATH:/usr/local/go/bin"

# shellcheck source=packaging/app.env
. packaging/app.env

DIST=${DIST:-$root/dist}
MODULE=$(go list -m)
VERSION=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
# SOURCE_DATE_EPOCH pins every timestamp in the archives (nfpm reads it too).
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH

die() {
	echo "package: $*" >&2
	exit 1
}

step_start=0
header() {
	step_start=$SECONDS
	printf '\n==> %s\n' "$*"
}
footer() {
	printf -- '--- ok (%ds)\n' $((SECONDS - step_start))
}

need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || die "$c is missing (scripts/deps.sh package installs it on Debian)"
	done
}

# pkg_version maps `git describe` to a version dpkg and rpm order correctly:
# v1.2.3 -> 1.2.3; v1.2.3-4-gabc -> 1.2.3+4.gabc (after the tag); an
# untagged abc1234 -> APP_RELEASE~git<commits>.gabc1234 (before the release
# it is building up to); -dirty -> .dirty appended.
pkg_version() {
	local d=$1 dirty="" v
	case $d in *-dirty)
		dirty=.dirty
		d=${d%-dirty}
		;;
	esac
	if [[ $d =~ ^v?([0-9]+\.[0-9]+\.[0-9]+)(-([0-9]+)-g([0-9a-f]+))?$ ]]; then
		v=${BASH_REMATCH[1]}
		[ -z "${BASH_REMATCH[3]}" ] || v="$v+${BASH_REMATCH[3]}.g${BASH_REMATCH[4]}"
	elif [[ $d =~ ^[0-9a-f]{4,}$ ]]; then
		v="$APP_RELEASE~git$(git rev-list --count HEAD).g$d"
	else
		v="$APP_RELEASE~dev"
	fi
	echo "$v$dirty"
}
PKG_VERSION=$(pkg_version "$VERSION")

ldflags() {
	echo "-s -w -X $MODULE/version.Version=$VERSION"
}

# build_nogui GOOS GOARCH DIR builds the static binaries into DIR: the
# client as paneflow, the headless server as paneflow-server, and every
# other cmd/ program under its own name (paneflow-mcp included once it
# exists).
build_nogui() {
	local goos=$1 goarch=$2 out=$3 exe=""
	[ "$goos" != windows ] || exe=.exe
	mkdir -p "$out"
	local env=(env CGO_ENABLED=0 GOOS="$goos" GOARCH="$goarch")
	local d pkgs=()
	for d in cmd/*/; do
		d=${d%/}
		[ "$d" = cmd/paneflow ] || pkgs+=("./$d")
	done
	"${env[@]}" go build -tags nogui -ldflags "$(ldflags)" -o "$out/" "${pkgs[@]}"
	"${env[@]}" go build -tags nogui -ldflags "$(ldflags)" -o "$out/paneflow-server$exe" ./cmd/paneflow
	"${env[@]}" go build -tags client,nogui -ldflags "$(ldflags)" -o "$out/paneflow$exe" ./cmd/paneflow
}

# gui_binary prints the Linux desktop app to package: $PANEFLOW_GUI_BIN,
# else bin/paneflow-gui built by `make gui`. It must be a PIE.
gui_binary() {
	local bin=${PANEFLOW_GUI_BIN:-}
	if [ -z "$bin" ]; then
		make --no-print-directory gui >&2
		bin=$root/bin/paneflow-gui
	fi
	[ -x "$bin" ] || die "the desktop app $bin does not exist"
	grep -q 'Type:.*DYN' < <(readelf -h "$bin") ||
		die "$bin is not a position-independent executable (build it with make gui, which adds -buildmode=pie on Linux)"
	echo "$bin"
}

icons() {
	local out=$1 s
	mkdir -p "$out"
	cp packaging/icon/paneflow.svg "$out/paneflow.svg"
	for s in 16 32 48 128 256 512; do
		rsvg-convert -w "$s" -h "$s" packaging/icon/paneflow.svg -o "$out/$s.png"
	done
}

# deb_depends prints the .deb's Depends for the binaries given, as
# dpkg-shlibdeps computes them from the libraries they link and the
# installed packages' symbols files: versioned package dependencies.
deb_depends() {
	local tmp out
	tmp=$(mktemp -d)
	mkdir "$tmp/debian"
	printf 'Source: paneflow\n\nPackage: paneflow\nArchitecture: amd64\n' >"$tmp/debian/control"
	out=$(cd "$tmp" && dpkg-shlibdeps -O "$@") || die "dpkg-shlibdeps failed on $*"
	rm -rf "$tmp"
	out=$(echo "$out" | sed -n 's/^shlibs:Depends=//p' | tr ',' '\n' | sed 's/^ *//')
	[ -n "$out" ] || die "dpkg-shlibdeps found no library dependencies for $*"
	echo "$out"
}

# rpm_depends prints the .rpm's Requires for the binaries given: the
# sonames they link, in rpm's own form (libGL.so.1()(64bit)), which every
# rpm distribution's library packages provide.
rpm_depends() {
	local out
	out=$(objdump -p "$@" | awk '$1 == "NEEDED" { print $2 "()(64bit)" }' | sort -u)
	[ -n "$out" ] || die "$* links no shared library"
	echo "$out"
}

target_linux() {
	need rsvg-convert dpkg-shlibdeps objdump readelf xz
	local gui out stage
	gui=$(gui_binary)
	out=$DIST/linux-amd64
	stage=$out/stage
	rm -rf "$out"
	rm -f "$DIST"/paneflow_*.deb "$DIST"/paneflow-*.rpm "$DIST"/paneflow-*-linux-amd64.tar.xz
	mkdir -p "$stage/bin"
	header "linux: static binaries ($VERSION, package version $PKG_VERSION)"
	build_nogui linux amd64 "$stage/bin"
	cp "$gui" "$stage/bin/paneflow-gui"
	strip "$stage/bin/paneflow-gui"
	icons "$stage/icons"
	cp packaging/linux/nfpm.yaml packaging/linux/io.paneflow.app.desktop \
		packaging/linux/io.paneflow.app.metainfo.xml \
		packaging/linux/lintian-overrides packaging/changelog.yml "$stage/"
	local b
	for b in "$stage"/bin/*; do
		grep -q 'Requesting program interpreter' < <(readelf -l "$b") ||
			echo "statically-linked-binary [usr/bin/$(basename "$b")]" >>"$stage/lintian-overrides"
	done
	footer

	header "linux: manual pages (from the programs' help) and copyright (with every linked Go module's licence)"
	# Generated from the binaries being packaged, so neither can fall behind
	# them; packaging/linux/check.sh checks both against the .deb's programs.
	pkgtool man -o "$stage/man" -bin "$stage/bin" -cmd cmd -version "$VERSION" \
		-date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)"
	gzip -9n "$stage"/man/*.1
	pkgtool copyright -o "$stage/copyright" -header packaging/linux/copyright \
		-goroot "$(go env GOROOT)" -modcache "$(go env GOMODCACHE)" "$stage"/bin/*
	ls "$stage/man"
	echo "copyright: $(grep -c '^Files:' "$stage/copyright") stanzas"
	footer

	header "linux: .deb and .rpm (nfpm)"
	{
		echo "overrides:"
		echo "  deb:"
		echo "    depends:"
		deb_depends "$stage/bin/paneflow-gui" | sed 's/^/      - /'
		echo "  rpm:"
		echo "    depends:"
		rpm_depends "$stage/bin/paneflow-gui" | sed 's/^/      - /'
	} >>"$stage/nfpm.yaml"
	(cd "$stage" && PF_PKG_VERSION=$PKG_VERSION nfpm package -f nfpm.yaml -p deb -t "$DIST/" &&
		PF_PKG_VERSION=$PKG_VERSION nfpm package -f nfpm.yaml -p rpm -t "$DIST/")
	footer

	header "linux: .tar.xz"
	local name=paneflow-$PKG_VERSION-linux-amd64 t
	t=$out/$name
	mkdir -p "$t/bin" "$t/share/applications" "$t/share/metainfo" "$t/share/doc/paneflow"
	cp "$stage"/bin/* "$t/bin/"
	cp packaging/linux/io.paneflow.app.desktop "$t/share/applications/"
	cp packaging/linux/io.paneflow.app.metainfo.xml "$t/share/metainfo/"
	cp "$stage/copyright" packaging/changelog.yml "$t/share/doc/paneflow/"
	mkdir -p "$t/share/man/man1"
	cp "$stage"/man/*.1.gz "$t/share/man/man1/"
	local s
	for s in 48 128 256 512; do
		mkdir -p "$t/share/icons/hicolor/${s}x$s/apps"
		cp "$stage/icons/$s.png" "$t/share/icons/hicolor/${s}x$s/apps/io.paneflow.app.png"
	done
	mkdir -p "$t/share/icons/hicolor/scalable/apps"
	cp "$stage/icons/paneflow.svg" "$t/share/icons/hicolor/scalable/apps/io.paneflow.app.svg"
	cp packaging/linux/install.sh "$t/install.sh"
	chmod 0755 "$t/install.sh"
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
		-C "$out" -cf - "$name" | xz -T1 -6 >"$DIST/$name.tar.xz"
	footer
	ls -l "$DIST"/*.deb "$DIST"/*.rpm "$DIST"/*.tar.xz
}

# go_tool prints the path of a Go tool pinned in packaging/tools/go.mod,
# building it on first use (go tool caches the binary).
go_tool() {
	(cd "$root/packaging/tools" && go tool -n "$1") || die "building the Go tool $1 failed"
}

nfpm() {
	"$(go_tool nfpm)" "$@"
}

# pkgtool runs packaging/pkgtool (Mach-O and .ico chores; go run caches
# the build).
pkgtool() {
	go run ./packaging/pkgtool "$@"
}

# short_version is the X.Y.Z of PKG_VERSION.
short_version() {
	local v=${PKG_VERSION%%[~+]*}
	echo "${v%.dirty}"
}

target_darwin() {
	need png2icns rsvg-convert python3
	local out=$DIST/darwin-universal app arch b
	rm -rf "$out"
	header "darwin: nogui binaries for arm64 and amd64, joined into universal ones"
	for arch in arm64 amd64; do
		build_nogui darwin "$arch" "$out/$arch"
	done
	app=$out/Paneflow.app
	mkdir -p "$app/Contents/MacOS" "$app/Contents/Resources"
	for b in "$out/arm64"/*; do
		b=$(basename "$b")
		pkgtool universal -o "$app/Contents/MacOS/$b" "$out/arm64/$b" "$out/amd64/$b"
	done
	rm -rf "$out/arm64" "$out/amd64"
	if [ -n "${PANEFLOW_DARWIN_GUI:-}" ]; then
		cp "$PANEFLOW_DARWIN_GUI" "$app/Contents/MacOS/paneflow-gui"
		chmod 0755 "$app/Contents/MacOS/paneflow-gui"
	fi
	footer

	header "darwin: Paneflow.app (Info.plist, .icns; the desktop app is built on a macOS runner)"
	local short count
	short=$(short_version)
	count=$(git rev-list --count HEAD 2>/dev/null || echo 0)
	sed -e "s|@APP_ID@|$APP_ID|g" -e "s|@APP_NAME@|$APP_NAME|g" \
		-e "s|@SHORT_VERSION@|$short|g" -e "s|@BUNDLE_VERSION@|$short.$count|g" \
		packaging/darwin/Info.plist >"$app/Contents/Info.plist"
	printf 'APPL????' >"$app/Contents/PkgInfo"
	icons "$out/icons"
	png2icns "$app/Contents/Resources/Paneflow.icns" "$out/icons/16.png" "$out/icons/32.png" \
		"$out/icons/128.png" "$out/icons/256.png" "$out/icons/512.png" >/dev/null
	rm -rf "$out/icons"
	check_app "$app"
	footer
}

# check_app checks a Paneflow.app's structure: Info.plist parses and says
# what package.sh and packaging/app.env say, every binary in Contents/MacOS
# is universal (arm64 + x86_64), the icon holds 16 to 512 px images, and the
# executable Info.plist names is there (only required on macOS, where the
# workflow builds the desktop app into the bundle).
check_app() {
	local app=$1 b exe
	exe=$(python3 - "$app/Contents/Info.plist" "$APP_ID" "$(short_version)" <<'PY'
import plistlib, sys
with open(sys.argv[1], "rb") as f:
    p = plistlib.load(f)
want = {"CFBundleIdentifier": sys.argv[2], "CFBundleShortVersionString": sys.argv[3],
        "CFBundlePackageType": "APPL", "CFBundleIconFile": "Paneflow.icns",
        "LSMinimumSystemVersion": "12.0"}
for k, v in want.items():
    if p.get(k) != v:
        sys.exit("Info.plist: %s is %r, want %r" % (k, p.get(k), v))
if not all(part.isdigit() for part in p["CFBundleVersion"].split(".")):
    sys.exit("Info.plist: CFBundleVersion %r is not dot-separated numbers" % p["CFBundleVersion"])
print(p["CFBundleExecutable"])
PY
	) || die "$app/Contents/Info.plist is wrong"
	for b in paneflow paneflow-server paneflow-ai-hook paneflow-shim; do
		[ -f "$app/Contents/MacOS/$b" ] || die "$app has no Contents/MacOS/$b"
	done
	for b in "$app/Contents/MacOS"/*; do
		pkgtool check-universal "$b" arm64 x86_64
	done
	if [ -x "$app/Contents/MacOS/$exe" ]; then
		:
	elif [ "$(uname -s)" = Darwin ]; then
		die "$app has no Contents/MacOS/$exe, the executable Info.plist names (set PANEFLOW_DARWIN_GUI)"
	else
		echo "Info.plist's executable $exe is added on macOS (the desktop app needs the macOS SDK)"
	fi
	icns2png -l "$app/Contents/Resources/Paneflow.icns" | tee "$DIST/icns.txt"
	for s in 16x16 32x32 128x128 256x256 512x512; do
		grep -q "$s" "$DIST/icns.txt" || die "Paneflow.icns has no $s image"
	done
	rm -f "$DIST/icns.txt"
}

# windows_resources writes DIR/rsrc_windows_amd64.syso: the icon, the
# version resource and the manifest of packaging/windows/paneflow.rc.
windows_resources() {
	local dir=$1 short count v1 v2 v3
	short=$(short_version)
	count=$(git rev-list --count HEAD 2>/dev/null || echo 0)
	IFS=. read -r v1 v2 v3 <<<"$short"
	icons "$dir/icons"
	pkgtool ico -o "$dir/paneflow.ico" "$dir/icons/16.png" "$dir/icons/32.png" \
		"$dir/icons/48.png" "$dir/icons/256.png"
	cp packaging/windows/paneflow.manifest "$dir/"
	sed -e "s|@V1@|$v1|g; s|@V2@|$v2|g; s|@V3@|$v3|g; s|@V4@|$((count % 65536))|g" \
		-e "s|@VERSION@|$VERSION|g; s|@APP_NAME@|$APP_NAME|g; s|@APP_VENDOR@|$APP_VENDOR|g" \
		-e "s|@APP_SUMMARY@|$APP_SUMMARY|g" packaging/windows/paneflow.rc >"$dir/paneflow.rc"
	(cd "$dir" && x86_64-w64-mingw32-windres -O coff -i paneflow.rc -o rsrc_windows_amd64.syso)
	echo "$v1.$v2.$v3.$((count % 65536))" >"$dir/version4"
}

# syso_in DIR puts DIR's .syso into cmd/paneflow, where go build links it
# into the Windows builds of that package (go build overlays do not carry
# .syso files); syso_out removes it again, also when the script fails.
# .gitignore keeps it out of commits.
syso=$root/cmd/paneflow/rsrc_windows_amd64.syso
syso_in() {
	trap syso_out EXIT
	cp "$1/rsrc_windows_amd64.syso" "$syso"
}
syso_out() {
	rm -f "$syso"
}

target_windows() {
	need x86_64-w64-mingw32-gcc x86_64-w64-mingw32-windres makensis wixl msiinfo rsvg-convert
	local out=$DIST/windows-amd64 res bin
	rm -rf "$out"
	rm -f "$DIST"/paneflow-*-windows-amd64-setup.exe "$DIST"/paneflow-*-windows-amd64.msi
	res=$out/res
	bin=$out/bin
	mkdir -p "$res" "$bin"
	header "windows: resources (.syso: icon, version $VERSION, manifest)"
	windows_resources "$res"
	footer

	header "windows: static nogui binaries"
	local env=(env CGO_ENABLED=0 GOOS=windows GOARCH=amd64) d pkgs=()
	for d in cmd/*/; do
		d=${d%/}
		[ "$d" = cmd/paneflow ] || pkgs+=("./$d")
	done
	"${env[@]}" go build -tags nogui -ldflags "$(ldflags)" -o "$bin/" "${pkgs[@]}"
	syso_in "$res"
	"${env[@]}" go build -tags nogui -ldflags "$(ldflags)" -o "$bin/paneflow-server.exe" ./cmd/paneflow
	"${env[@]}" go build -tags client,nogui -ldflags "$(ldflags)" -o "$bin/paneflow.exe" ./cmd/paneflow
	footer

	header "windows: the desktop app (cgo, x86_64-w64-mingw32-gcc)"
	env CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc \
		go build -ldflags "$(ldflags) -H windowsgui" -o "$bin/paneflow-gui.exe" ./cmd/paneflow
	syso_out
	local f
	for f in paneflow.exe paneflow-server.exe paneflow-gui.exe; do
		# The resource's version (UTF-16) and the -X one both say $VERSION.
		# (grep reads a process substitution: an early grep -q exit would
		# fail a pipe under pipefail.)
		grep -qx "$VERSION" < <(strings -el "$bin/$f") || die "$f has no version resource saying $VERSION"
		grep -qF "$VERSION" < <(strings "$bin/$f") || die "$f lost the -X version $VERSION"
	done
	footer

	sign_windows "$bin"/*.exe

	header "windows: NSIS installer"
	local setup=$DIST/paneflow-$PKG_VERSION-windows-amd64-setup.exe f
	for f in "$bin"/*.exe; do
		# shellcheck disable=SC2016 # $INSTDIR is NSIS's variable
		printf 'Delete "$INSTDIR\\%s"\n' "$(basename "$f")"
	done >"$res/uninstall-files.nsh"
	makensis -V2 -NOCD "-DVERSION=$VERSION" "-DVERSION4=$(cat "$res/version4")" \
		"-DSRCDIR=$bin" "-DOUTFILE=$setup" "-DICON=$res/paneflow.ico" \
		"-DUNINSTFILES=$res/uninstall-files.nsh" packaging/windows/paneflow.nsi
	sign_windows "$setup"
	footer

	header "windows: MSI (wixl), checked with msiinfo"
	local msi=$DIST/paneflow-$PKG_VERSION-windows-amd64.msi
	msi_programs "$bin" >"$res/programs.wxs"
	cp packaging/windows/paneflow.wxs "$res/"
	# wixl takes a Source path relative to the directory it runs in
	# (absolute ones fail with "Couldn't find file").
	(cd "$out" && wixl -a x64 -D "VERSION=$VERSION" -D "VERSION4=$(cat res/version4)" \
		-D SRCDIR=bin -D ICON=res/paneflow.ico -o "$msi" res/paneflow.wxs res/programs.wxs)
	sign_windows "$msi"
	check_msi "$msi" "$bin" "$(cat "$res/version4")"
	footer
	check_signing "$setup"
	ls -l "$setup" "$msi" "$bin"
}

# msi_programs prints the WiX fragment paneflow.wxs takes its programs
# from: one component per .exe in DIR (its file the key path, the GUID
# derived from the install path by wixl), in the group Programs.
msi_programs() {
	local f b id ids=()
	echo '<?xml version="1.0" encoding="utf-8"?>'
	echo '<Wix xmlns="http://schemas.microsoft.com/wix/2006/wi"><Fragment>'
	echo '  <DirectoryRef Id="INSTALLDIR">'
	for f in "$1"/*.exe; do
		b=$(basename "$f")
		id=${b%.exe}
		id=${id//-/_}
		ids+=("$id")
		echo "    <Component Id=\"c_$id\" Guid=\"*\" Win64=\"yes\"><File Id=\"f_$id\" Name=\"$b\" Source=\"\$(var.SRCDIR)/$b\" KeyPath=\"yes\"/></Component>"
	done
	echo '  </DirectoryRef>'
	echo '  <ComponentGroup Id="Programs">'
	for id in "${ids[@]}"; do
		echo "    <ComponentRef Id=\"c_$id\"/>"
	done
	echo '  </ComponentGroup>'
	echo '</Fragment></Wix>'
}

# check_msi MSI DIR VERSION4 reads the MSI back with msiinfo: its summary
# (x64, the version), the properties (ProductVersion, all users, the
# UpgradeCode of paneflow.wxs), every .exe of DIR in the File table with
# its size, and the Start-menu shortcut to the desktop app.
check_msi() {
	local msi=$1 dir=$2 v4=$3 t f
	t=$(mktemp -d)
	msiinfo suminfo "$msi" >"$t/sum"
	grep -qx 'Template: x64;1033' "$t/sum" || die "$msi is not an x64 package: $(cat "$t/sum")"
	grep -qx "Subject: Paneflow $VERSION" "$t/sum" || die "$msi does not say Paneflow $VERSION: $(cat "$t/sum")"
	msiinfo export "$msi" Property | tr -d '\r' >"$t/prop"
	grep -qx "ProductVersion	$v4" "$t/prop" || die "$msi: ProductVersion is not $v4"
	grep -qx 'ALLUSERS	1' "$t/prop" || die "$msi does not install for all users"
	grep -qx "UpgradeCode	{$(sed -n 's/.*UpgradeCode="\([^"]*\)".*/\1/p' packaging/windows/paneflow.wxs)}" "$t/prop" ||
		die "$msi: the UpgradeCode is not paneflow.wxs's"
	msiinfo export "$msi" File | tr -d '\r' >"$t/file"
	for f in "$dir"/*.exe; do
		grep -qP "^f_\S+\t\S+\t$(basename "$f")\t$(stat -c %s "$f")\t" "$t/file" ||
			die "$msi: no $(basename "$f") of $(stat -c %s "$f") bytes in its File table"
	done
	[ "$(($(wc -l <"$t/file") - 3))" = "$(find "$dir" -name '*.exe' | wc -l)" ] ||
		die "$msi: its File table holds files that are not in $dir: $(cat "$t/file")"
	grep -q 'ProgramMenuFolder	Paneflow	StartMenuShortcut	\[INSTALLDIR\]paneflow-gui.exe' \
		< <(msiinfo export "$msi" Shortcut) || die "$msi has no Start-menu shortcut to paneflow-gui.exe"
	msiinfo tables "$msi" | tr '\n' ' '
	echo
	rm -rf "$t"
}

# check_signing proves sign_windows works without a real certificate: it
# signs a copy of $1 with a throwaway self-signed one made here, and
# osslsigncode verifies the signature against it. The copy and the
# certificate are deleted; what ships is signed only with PANEFLOW_SIGN_PFX.
check_signing() {
	need openssl osslsigncode
	header "windows: signing a copy with a throwaway certificate, then verifying it"
	local tmp
	tmp=$(mktemp -d)
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=Paneflow test signing" \
		-addext "extendedKeyUsage=codeSigning" -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null
	openssl pkcs12 -export -inkey "$tmp/key.pem" -in "$tmp/cert.pem" -passout pass:test -out "$tmp/cert.pfx"
	cp "$1" "$tmp/setup.exe"
	(PANEFLOW_SIGN_PFX=$tmp/cert.pfx PANEFLOW_SIGN_PASS=test sign_windows "$tmp/setup.exe") >/dev/null
	osslsigncode verify -CAfile "$tmp/cert.pem" -in "$tmp/setup.exe" | grep -E '^Signature verification' || true
	osslsigncode verify -CAfile "$tmp/cert.pem" -in "$tmp/setup.exe" >/dev/null ||
		{ rm -rf "$tmp"; die "osslsigncode could not verify the test signature"; }
	rm -rf "$tmp"
	footer
}

# sign_windows signs the given .exe files in place with osslsigncode when
# PANEFLOW_SIGN_PFX names a PKCS#12 certificate (password in
# PANEFLOW_SIGN_PASS); without one it does nothing. No certificate is ever
# kept in the repository.
sign_windows() {
	[ -n "${PANEFLOW_SIGN_PFX:-}" ] || return 0
	need osslsigncode
	local f
	for f in "$@"; do
		osslsigncode sign -pkcs12 "$PANEFLOW_SIGN_PFX" -pass "${PANEFLOW_SIGN_PASS:-}" \
			-n "$APP_NAME" -i "$APP_HOMEPAGE" -h sha256 -in "$f" -out "$f.signed" >/dev/null
		mv -f "$f.signed" "$f"
		echo "signed $f"
	done
}

# target_selftest checks pkg_version's mapping and that dpkg and rpm order
# the results as releases are ordered.
target_selftest() {
	need dpkg rpm
	header "selftest: package versions from git describe"
	local in want got count
	count=$(git rev-list --count HEAD)
	while read -r in want; do
		got=$(pkg_version "$in")
		[ "$got" = "$want" ] || die "pkg_version $in = $got, want $want"
	done <<EOF
v1.2.3 1.2.3
1.2.3 1.2.3
v1.2.3-4-gabc1234 1.2.3+4.gabc1234
v1.2.3-4-gabc1234-dirty 1.2.3+4.gabc1234.dirty
abc1234 $APP_RELEASE~git$count.gabc1234
abc1234-dirty $APP_RELEASE~git$count.gabc1234.dirty
weird-name $APP_RELEASE~dev
EOF
	# pre-release < release < post-release commits, for dpkg and for rpm.
	local pair a b
	for pair in "0.1.0~git5.gabc 0.1.0" "0.1.0 0.1.0+3.gdef" "0.1.0+3.gdef 0.1.1"; do
		read -r a b <<<"$pair"
		dpkg --compare-versions "$a" lt "$b" || die "dpkg orders $a after $b"
		[ "$(rpm --eval "%{lua: print(rpm.vercmp('$a', '$b'))}")" = -1 ] || die "rpm orders $a after $b"
	done
	footer
}

target_actionlint() {
	need shellcheck
	header "actionlint .github/workflows/*.yml"
	"$(go_tool actionlint)" -no-color -pyflakes= .github/workflows/*.yml
	footer
}

target_wine() {
	local f
	for f in "$DIST/paneflow-$PKG_VERSION-windows-amd64-setup.exe" "$DIST/paneflow-$PKG_VERSION-windows-amd64.msi"; do
		[ -f "$f" ] || die "no $f: run the windows target first"
	done
	bash packaging/windows/wine-check.sh "$DIST/paneflow-$PKG_VERSION-windows-amd64-setup.exe" \
		"$DIST/paneflow-$PKG_VERSION-windows-amd64.msi" "$VERSION"
}

target_check() {
	bash packaging/linux/check.sh "$DIST" "$PKG_VERSION" "$VERSION"
}

[ $# -gt 0 ] || {
	sed -n '2,/^set -e/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}
for t in "$@"; do
	case $t in
	linux | check | windows | wine | darwin | actionlint | selftest) "target_$t" ;;
	*) die "unknown target '$t' (see packaging/package.sh with no arguments)" ;;
	esac
done

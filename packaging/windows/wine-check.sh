#!/usr/bin/env bash
# wine-check.sh smoke-tests the Windows installer under Wine (Debian 12's
# wine 8, 64-bit only), in a throwaway Wine prefix:
#
#   packaging/windows/wine-check.sh SETUP.EXE MSI VERSION
#
# 1. the installer installs silently per user (/S /CurrentUser): every .exe,
#    uninstall.exe, the Start-menu shortcut, the Apps entry, and the install
#    folder on the user's PATH (HKCU\Environment);
# 2. `paneflow version` prints VERSION, run by name through cmd.exe, so it is
#    found on the PATH the installer set;
# 3. `paneflow serve` (handed over to paneflow-server.exe) listens on a named
#    pipe and `paneflow ls` and `paneflow new` answer over it;
# 4. the silent uninstaller removes the folder, the shortcut, the Apps entry
#    and the PATH entry, keeping the user's own PATH entry as it was;
# 5. an all-users install (/AllUsers) goes to Program Files and onto the
#    system PATH (HKLM), and its uninstaller takes both away again;
# 6. the MSI installs silently (msiexec /i /qn) into Program Files with its
#    Start-menu shortcut, `paneflow version` runs from there, and
#    msiexec /x /qn removes all of it.
#
# Where Wine is not Windows, the script says so on its output instead of
# hiding it (the Windows job of .github/workflows/package.yml runs the same
# installer on real Windows):
# - Go 1.22 and newer call ProcessPrng in bcryptprimitives.dll, which Wine 8
#   lacks: the first run shows the failure, then a stub DLL built here with
#   mingw (bcryptprimitives.c) goes into the prefix's system32. If this Wine
#   has the function, the stub is not used and the script says that.
# - The first client connection to go-winio's named pipe gets no answer
#   under Wine 8 (the client gives up after its 10 s); the ones after it
#   work. It is the server's first pipe instance that swallows whichever
#   client comes first (a raw `echo > \\.\pipe\…` first makes the next
#   `ls` answer at once). The first `ls` may therefore fail, and the script
#   reports which happened; the second must succeed.
# - ConPTY panes show no output under Wine (the shell in a pane exits at
#   once with nothing on screen): the script prints what the server's first
#   pane reports and does not count it either way.
set -euo pipefail

[ $# -eq 3 ] || {
	echo "usage: $0 SETUP.EXE MSI VERSION" >&2
	exit 2
}
setup=$(realpath "$1")
msi=$(realpath "$2")
version=$3
here=$(cd "$(dirname "$0")" && pwd)

die() {
	echo "wine-check: $*" >&2
	exit 1
}
note() {
	echo "wine-check: WINE DIFFERENCE: $*"
}
for c in wine x86_64-w64-mingw32-gcc; do
	command -v "$c" >/dev/null || die "$c is missing (scripts/deps.sh package installs it)"
done

tmp=$(mktemp -d)
export WINEPREFIX=$tmp/prefix WINEDEBUG=-all WINEARCH=win64
# Wine's menu builder would copy the Start-menu shortcut into the user's
# desktop menu (~/.local/share/applications/wine): it is disabled, and
# HOME and XDG point into the temporary directory anyway. No Mono or Gecko
# download prompts; no X display (console programs only).
export WINEDLLOVERRIDES="mscoree,mshtml=;winemenubuilder.exe=d"
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config XDG_DATA_HOME=$tmp/home/.local/share \
	XDG_CACHE_HOME=$tmp/home/.cache XDG_RUNTIME_DIR=$tmp/run
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
chmod 0700 "$XDG_RUNTIME_DIR"
unset DISPLAY WAYLAND_DISPLAY
server_pid=
cleanup() {
	[ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
	# wineserver -k ends this prefix's processes and server only.
	[ ! -d "$WINEPREFIX" ] || wineserver -k 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# w runs a Windows program and strips the CR of its CRLF lines.
w() {
	wine "$@" | tr -d '\r'
}

step_start=0
header() {
	step_start=$SECONDS
	printf '\n==> wine: %s\n' "$*"
}
footer() {
	printf -- '--- ok (%ds)\n' $((SECONDS - step_start))
}

header "prefix ($(wine --version))"
wineboot --init >"$tmp/wineboot.log" 2>&1 || {
	cat "$tmp/wineboot.log" >&2
	die "wineboot --init failed"
}
# Windows paths of this prefix's user.
local_appdata=$(w cmd /c 'echo %LOCALAPPDATA%')
appdata=$(w cmd /c 'echo %APPDATA%')
[[ $local_appdata == [A-Z]:\\* ]] || die "no %LOCALAPPDATA% in the prefix: '$local_appdata'"
dir_win="$local_appdata\\Programs\\Paneflow"
dir=$(winepath -u "$dir_win")
lnk=$(winepath -u "$appdata\\Microsoft\\Windows\\Start Menu\\Programs\\Paneflow.lnk")
uninstkey='HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\io.paneflow.app'
footer

syspathkey='HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment'

# system_path prints the system's PATH value.
system_path() {
	w reg query "$syspathkey" /v Path | sed -n 's/^ *Path *REG_[A-Z_]*SZ *//p'
}
# user_path prints the user's PATH value (HKCU\Environment), empty if unset.
user_path() {
	w reg query 'HKCU\Environment' /v Path 2>/dev/null | sed -n 's/^ *Path *REG_[A-Z_]*SZ *//p'
}
# on_path DIR reports whether the user's PATH holds DIR as an entry.
on_path() {
	local IFS=';' e
	for e in $(user_path); do
		[ "${e,,}" != "${1,,}" ] || return 0
	done
	return 1
}

header "silent per-user install"
# An entry of the user's own, which install and uninstall must keep.
w reg add 'HKCU\Environment' /v Path /t REG_EXPAND_SZ /d '%USERPROFILE%\bin' /f >/dev/null
wine "$setup" /S /CurrentUser
for f in paneflow.exe paneflow-server.exe paneflow-gui.exe paneflow-ai-hook.exe paneflow-shim.exe uninstall.exe; do
	[ -f "$dir/$f" ] || die "the installer did not install $dir/$f"
done
[ -f "$lnk" ] || die "no Start-menu shortcut at $lnk"
grep -q "DisplayVersion *REG_SZ *$version\$" < <(w reg query "$uninstkey") ||
	die "no Apps entry $uninstkey with DisplayVersion $version"
on_path "$dir_win" || die "the installer did not put $dir_win on the user's PATH: '$(user_path)'"
[ "$(user_path)" = "%USERPROFILE%\\bin;$dir_win" ] ||
	die "the user's PATH is '$(user_path)', want the old entry kept unexpanded and $dir_win appended"
echo "user PATH: $(user_path)"
footer

header "paneflow version (by name, from the PATH the installer set)"
if out=$(cd "$tmp" && wine cmd /c paneflow version 2>&1); then
	echo "Go programs start without a stub bcryptprimitives.dll in this Wine"
elif grep -q 'bcryptprimitives.dll not found' <<<"$out"; then
	note "Go >= 1.22 programs die at start: bcryptprimitives.dll (ProcessPrng) is missing; adding a mingw-built stub to system32"
	x86_64-w64-mingw32-gcc -O2 -shared -s -o "$tmp/bcryptprimitives.dll" \
		"$here/bcryptprimitives.c" "$here/bcryptprimitives.def" -ladvapi32
	cp "$tmp/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
	out=$(cd "$tmp" && wine cmd /c paneflow version 2>&1) || die "paneflow version failed: $out"
else
	die "paneflow version failed: $out"
fi
out=$(tr -d '\r' <<<"$out")
[ "$out" = "paneflow $version" ] || die "paneflow version printed '$out', want 'paneflow $version'"
echo "$out"
footer

header "paneflow serve on a named pipe, then ls and new over it"
export PANEFLOW_SOCKET_PATH="\\\\.\\pipe\\paneflow-wine-$$"
wine "$dir/paneflow.exe" serve >"$tmp/serve.log" 2>&1 &
server_pid=$!
# Wait for the server's "serving on" line (or its end; a server still
# silent after 5 minutes is stuck).
tries=0
while ! grep -q 'serving on' "$tmp/serve.log"; do
	tries=$((tries + 1))
	[ "$tries" -lt 1500 ] || die "paneflow serve printed no 'serving on' line in 5 minutes: $(cat "$tmp/serve.log")"
	kill -0 "$server_pid" 2>/dev/null || {
		cat "$tmp/serve.log" >&2
		die "paneflow serve exited before serving"
	}
	sleep 0.2
done
cat "$tmp/serve.log"
if out=$(w "$dir/paneflow.exe" ls 2>&1); then
	echo "the first connection to the pipe was answered"
else
	grep -q 'did not respond' <<<"$out" || die "paneflow ls failed: $out"
	note "the first connection to go-winio's named pipe got no answer: $out"
fi
out=$(w "$dir/paneflow.exe" ls) || die "paneflow ls failed on the second connection: $out"
grep -q '"pane_count": 1' <<<"$out" || die "paneflow ls: no pane_count 1 in: $out"
if grep -q '"exited": true' <<<"$out"; then
	lines=$(w "$dir/paneflow.exe" read 1 | sed -n '1s/.*total_lines="\([0-9]*\)".*/\1/p')
	note "ConPTY: the server's first pane (cmd.exe) has already exited, showing ${lines:-?} lines of output"
fi
out=$(w "$dir/paneflow.exe" new) || die "paneflow new failed: $out"
grep -q '"panes": 1' <<<"$out" || die "paneflow new: no new workspace in: $out"
w "$dir/paneflow.exe" ls --human
w taskkill /F /IM paneflow-server.exe
wait "$server_pid" || true
server_pid=
footer

header "silent uninstall"
wine "$dir/uninstall.exe" /CurrentUser /S
# The uninstaller copies itself to %TEMP% and returns at once: wait for
# every process of the prefix to end.
wineserver -w
[ ! -e "$dir" ] || die "the uninstaller left $dir: $(find "$dir")"
[ ! -e "$lnk" ] || die "the uninstaller left $lnk"
! w reg query "$uninstkey" >/dev/null 2>&1 || die "the uninstaller left $uninstkey"
[ "$(user_path)" = '%USERPROFILE%\bin' ] ||
	die "after uninstalling, the user's PATH is '$(user_path)', want just the user's own '%USERPROFILE%\\bin'"
echo "user PATH: $(user_path)"
footer

header "silent install for all users (Wine's user is an administrator)"
syspath=$(system_path)
[ -n "$syspath" ] || die "no system PATH in $syspathkey"
pf=$(w cmd /c 'echo %ProgramW6432%')
sysdir_win="$pf\\Paneflow"
sysdir=$(winepath -u "$sysdir_win")
wine "$setup" /S /AllUsers
[ -f "$sysdir/paneflow.exe" ] || die "the all-users install has no $sysdir/paneflow.exe"
[ "$(system_path)" = "$syspath;$sysdir_win" ] ||
	die "the system PATH is '$(system_path)', want '$syspath;$sysdir_win'"
[ "$(user_path)" = '%USERPROFILE%\bin' ] || die "the all-users install changed the user's PATH: '$(user_path)'"
out=$(cd "$tmp" && w cmd /c paneflow version) || die "paneflow version (all users) failed: $out"
[ "$out" = "paneflow $version" ] || die "paneflow version (all users) printed '$out'"
echo "system PATH: $(system_path)"
wine "$sysdir/uninstall.exe" /AllUsers /S
wineserver -w
[ ! -e "$sysdir" ] || die "the uninstaller left $sysdir: $(find "$sysdir")"
[ "$(system_path)" = "$syspath" ] || die "after uninstalling, the system PATH is '$(system_path)', want '$syspath'"
footer

header "MSI: msiexec /i /qn, paneflow version, msiexec /x /qn"
wine msiexec /i "$msi" /qn || die "msiexec /i $msi failed"
for f in paneflow.exe paneflow-server.exe paneflow-gui.exe paneflow-ai-hook.exe paneflow-shim.exe; do
	[ -f "$sysdir/$f" ] || die "the MSI did not install $sysdir/$f"
done
out=$(w "$sysdir/paneflow.exe" version) || die "paneflow version (MSI) failed: $out"
[ "$out" = "paneflow $version" ] || die "paneflow version (MSI) printed '$out'"
echo "$out"
common_lnk=$(winepath -u "$(w cmd /c 'echo %ProgramData%')\\Microsoft\\Windows\\Start Menu\\Programs\\Paneflow.lnk")
if [ -f "$common_lnk" ]; then
	echo "Start-menu shortcut for all users: $common_lnk"
elif [ -f "$lnk" ]; then
	note "msiexec put the all-users (ALLUSERS=1) shortcut into the user's Start menu, not %ProgramData%'s as Windows does: $lnk"
else
	die "the MSI made no Start-menu shortcut (neither $common_lnk nor $lnk)"
fi
wine msiexec /x "$msi" /qn || die "msiexec /x $msi failed"
wineserver -w
[ ! -e "$sysdir" ] || die "msiexec /x left $sysdir: $(find "$sysdir")"
if [ -e "$lnk" ] || [ -e "$common_lnk" ]; then
	die "msiexec /x left the Start-menu shortcut"
fi
! w reg query 'HKLM\Software\Paneflow' >/dev/null 2>&1 || die "msiexec /x left HKLM\Software\Paneflow"
footer

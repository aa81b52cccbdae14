; Paneflow's Windows installer (NSIS 3, 64-bit). packaging/package.sh
; (target windows) runs makensis with:
;   /DVERSION=<git describe>  /DVERSION4=<a.b.c.d>  /DSRCDIR=<the .exe files>
;   /DOUTFILE=<installer path>  /DICON=<paneflow.ico>
;
; It installs per user (%LOCALAPPDATA%\Programs\Paneflow, no elevation) or
; for all users (Program Files, elevated): the installer asks, and /AllUsers
; or /CurrentUser on the command line decide for a silent install (/S).
; It adds a Start-menu shortcut for the desktop app, the install folder to
; PATH (the user's for a per-user install, the system's for all users; see
; AddToPath) and an entry in Settings > Apps whose uninstaller removes every
; file it installed and the folder from PATH again.

Unicode true
Target amd64-unicode
SetCompressor /SOLID lzma
ManifestDPIAware true
RequestExecutionLevel user

!define APP "Paneflow"
!define APPID "io.paneflow.app"
!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APPID}"

Name "${APP}"
OutFile "${OUTFILE}"
BrandingText "${APP} ${VERSION}"

!define MULTIUSER_EXECUTIONLEVEL Highest
!define MULTIUSER_MUI
!define MULTIUSER_INSTALLMODE_COMMANDLINE
!define MULTIUSER_INSTALLMODE_INSTDIR "${APP}"
!define MULTIUSER_USE_PROGRAMFILES64
!define MULTIUSER_INSTALLMODE_DEFAULT_CURRENTUSER
!include MultiUser.nsh
!include MUI2.nsh
!include LogicLib.nsh
!include WinMessages.nsh

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_FINISHPAGE_RUN "$INSTDIR\paneflow-gui.exe"

!insertmacro MULTIUSER_PAGE_INSTALLMODE
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

VIProductVersion "${VERSION4}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "ProductName" "${APP}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "FileDescription" "${APP} installer"
VIAddVersionKey /LANG=${LANG_ENGLISH} "CompanyName" "Paneflow developers"
VIAddVersionKey /LANG=${LANG_ENGLISH} "LegalCopyright" "Copyright 2026 Paneflow developers"

Function .onInit
  !insertmacro MULTIUSER_INIT
FunctionEnd

Function un.onInit
  !insertmacro MULTIUSER_UNINIT
FunctionEnd

; PATH is edited in plain NSIS (registry and WM_SETTINGCHANGE), without a
; plugin. The value is read and written raw (REG_EXPAND_SZ), so %VARS% in
; it stay unexpanded. NSIS strings hold NSIS_MAX_STRLEN (1024) characters:
; a PATH that long could come back truncated, so it is never rewritten and
; the installer says so instead of clobbering it.
!define ENV_USER "Environment"
!define ENV_SYSTEM "SYSTEM\CurrentControlSet\Control\Session Manager\Environment"

!macro PATH_FUNCTIONS UN
; ${UN}EnvKey sets $5 to the Environment key under SHCTX this install uses.
Function ${UN}EnvKey
  ${If} $MultiUser.InstallMode == "AllUsers"
    StrCpy $5 "${ENV_SYSTEM}"
  ${Else}
    StrCpy $5 "${ENV_USER}"
  ${EndIf}
FunctionEnd

; ${UN}PathWithout sets $1 to the PATH value $0 less every entry that is
; $INSTDIR (any case, with or without a trailing backslash); the other
; entries, empty ones included, keep their order. Clobbers $2-$4 and $6.
Function ${UN}PathWithout
  StrCpy $1 ""
  StrCpy $2 ""
  StrCpy $4 0
  StrCpy $6 0 ; 1 once $1 holds an entry (an empty one too)
  ${Do}
    StrCpy $3 $0 1 $4
    ${If} $3 == ";"
    ${OrIf} $3 == ""
      ${If} $2 != $INSTDIR
      ${AndIf} $2 != "$INSTDIR\"
        ${If} $6 == 1
          StrCpy $1 "$1;$2"
        ${Else}
          StrCpy $1 $2
          StrCpy $6 1
        ${EndIf}
      ${EndIf}
      StrCpy $2 ""
      ${IfThen} $3 == "" ${|} ${ExitDo} ${|}
    ${Else}
      StrCpy $2 "$2$3"
    ${EndIf}
    IntOp $4 $4 + 1
  ${Loop}
FunctionEnd
!macroend
!insertmacro PATH_FUNCTIONS ""
!insertmacro PATH_FUNCTIONS "un."

; AddToPath appends $INSTDIR to PATH unless it is there already, and tells
; running programs (Explorer) the environment changed.
Function AddToPath
  Call EnvKey
  ReadRegStr $0 SHCTX $5 "Path"
  StrLen $7 $0
  StrLen $8 $INSTDIR
  IntOp $7 $7 + $8
  IntOp $7 $7 + 2
  ${If} $7 >= ${NSIS_MAX_STRLEN}
    DetailPrint "PATH is too long for this installer to edit safely: add $INSTDIR to it yourself"
    Return
  ${EndIf}
  Call PathWithout
  ${If} $1 != $0
    DetailPrint "$INSTDIR is on PATH already"
    Return
  ${EndIf}
  ${If} $0 == ""
    StrCpy $1 $INSTDIR
  ${Else}
    StrCpy $1 "$0;$INSTDIR"
  ${EndIf}
  WriteRegExpandStr SHCTX $5 "Path" $1
  SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
FunctionEnd

; un.RemoveFromPath takes $INSTDIR out of PATH again (the value is deleted
; if nothing else was in it).
Function un.RemoveFromPath
  Call un.EnvKey
  ClearErrors
  ReadRegStr $0 SHCTX $5 "Path"
  ${If} ${Errors}
    Return
  ${EndIf}
  StrLen $7 $0
  IntOp $7 $7 + 1
  ${If} $7 >= ${NSIS_MAX_STRLEN}
    DetailPrint "PATH is too long for this uninstaller to edit safely: remove $INSTDIR from it yourself"
    Return
  ${EndIf}
  Call un.PathWithout
  ${If} $1 == $0
    Return
  ${EndIf}
  ${If} $1 == ""
    DeleteRegValue SHCTX $5 "Path"
  ${Else}
    WriteRegExpandStr SHCTX $5 "Path" $1
  ${EndIf}
  SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
FunctionEnd

Section "Paneflow" SecMain
  SectionIn RO
  SetOutPath "$INSTDIR"
  File "${SRCDIR}\*.exe"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  CreateShortcut "$SMPROGRAMS\${APP}.lnk" "$INSTDIR\paneflow-gui.exe" "" "$INSTDIR\paneflow-gui.exe" 0
  ; SHCTX is HKCU for a per-user install, HKLM for all users.
  WriteRegStr SHCTX "${UNINSTKEY}" "DisplayName" "${APP}"
  WriteRegStr SHCTX "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr SHCTX "${UNINSTKEY}" "Publisher" "Paneflow developers"
  WriteRegStr SHCTX "${UNINSTKEY}" "DisplayIcon" "$INSTDIR\paneflow-gui.exe"
  WriteRegStr SHCTX "${UNINSTKEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr SHCTX "${UNINSTKEY}" "UninstallString" '"$INSTDIR\uninstall.exe" /$MultiUser.InstallMode'
  WriteRegStr SHCTX "${UNINSTKEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /$MultiUser.InstallMode /S'
  WriteRegDWORD SHCTX "${UNINSTKEY}" "NoModify" 1
  WriteRegDWORD SHCTX "${UNINSTKEY}" "NoRepair" 1
  Call AddToPath
SectionEnd

Section "Uninstall"
  ; Only what the installer put there, then the folder if it is empty.
  !include "${UNINSTFILES}"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  Delete "$SMPROGRAMS\${APP}.lnk"
  DeleteRegKey SHCTX "${UNINSTKEY}"
  Call un.RemoveFromPath
SectionEnd

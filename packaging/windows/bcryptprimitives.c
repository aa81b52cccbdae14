/*
 * A stand-in bcryptprimitives.dll for Wine 8 (Debian 12), built with mingw by
 * packaging/windows/wine-check.sh only for its smoke test, never shipped.
 * Go 1.22 and newer take their random bytes from ProcessPrng in
 * bcryptprimitives.dll, which Windows 10 and later have and Wine 8 does not:
 * there a Go program dies at start ("bcryptprimitives.dll not found").
 * This ProcessPrng fills the buffer from RtlGenRandom (advapi32), which Wine
 * implements; like Windows' it never fails for a valid buffer.
 */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!RtlGenRandom(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}

package conductor

import "os"

// systemProcs reads /proc.
func systemProcs() procTable { return procFS{fsys: os.DirFS("/proc")} }

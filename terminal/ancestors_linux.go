package terminal

// parentFunc reads each parent from /proc/<pid>/stat.
func parentFunc() (func(int) (int, error), error) {
	return func(pid int) (int, error) {
		st, err := readProcStat(pid)
		if err != nil {
			return 0, err
		}
		return st.ppid, nil
	}, nil
}

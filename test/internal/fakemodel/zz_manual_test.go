package fakemodel

import (
	"encoding/json"
	"os"
	"testing"
	"time"
)

func TestManualServe(t *testing.T) {
	if os.Getenv("FM_MANUAL") == "" {
		t.Skip()
	}
	var turns []Turn
	json.Unmarshal([]byte(os.Getenv("FM_SCRIPT")), &turns)
	s := Start(t, turns...)
	os.WriteFile(os.Getenv("FM_MANUAL"), []byte(s.URL), 0o644)
	for i := 0; i < 1200; i++ {
		time.Sleep(time.Second)
		if b, _ := os.ReadFile(os.Getenv("FM_MANUAL") + ".dump"); len(b) == 0 {
			j, _ := json.Marshal(s.Requests())
			os.WriteFile(os.Getenv("FM_MANUAL")+".log", j, 0o644)
		}
	}
}

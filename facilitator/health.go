package facilitator

import (
	"time"
)

// HealthResponse is the body of GET /healthcheck (spec 2.4): uptime in
// seconds, responseTime as [seconds, nanoseconds] and timestamp in Unix
// milliseconds, as the Node.js reference service gives them.
type HealthResponse struct {
	Status  string        `json:"status"`
	Results HealthResults `json:"results"`
}

// HealthResults holds the fields of the health result.
type HealthResults struct {
	Uptime       float64  `json:"uptime"`
	ResponseTime [2]int64 `json:"responseTime"`
	Message      string   `json:"message"`
	Timestamp    int64    `json:"timestamp"`
}

// Health returns the health result. start is when the request arrived, for
// responseTime.
func (f *Facilitator) Health(start time.Time) *HealthResponse {
	now := time.Now()
	took := now.Sub(start)
	return &HealthResponse{
		Status: "success",
		Results: HealthResults{
			Uptime:       now.Sub(f.started).Seconds(),
			ResponseTime: [2]int64{int64(took / time.Second), int64(took % time.Second)},
			Message:      "OK",
			Timestamp:    now.UnixMilli(),
		},
	}
}

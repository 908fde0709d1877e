package localcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Question is the one question the demo asks: the three origin states
// with the most flights, with their on-time rate.
const Question = `{"metrics":["flight_count","on_time_rate"],"dimensions":["origin.state"],"order_by":[{"key":"flight_count","dir":"desc"}],"limit":3}`

// Answer is the part of a query response the demo prints.
type Answer struct {
	ModelVersion string `json:"model_version"`
	Columns      []struct {
		Name string `json:"name"`
	} `json:"columns"`
	Rows [][]any `json:"rows"`
}

// Ask posts query (a JSON query body) to the server's query endpoint of
// the flights model and decodes the answer; a status other than 200 is an
// error carrying the problem body.
func (c *Cluster) Ask(ctx context.Context, query string) (*Answer, error) {
	url := c.ServerURL + "/v1/models/" + ModelName + "/query"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(query))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("POST %s: %d %s", url, resp.StatusCode, body)
	}
	var a Answer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("POST %s: %v", url, err)
	}
	return &a, nil
}

func get(ctx context.Context, url string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

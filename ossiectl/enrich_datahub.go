package ossiectl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// datahubQuery reads what enrich uses from one dataset of DataHub's
// GraphQL API (datahub-graphql-core entity.graphql: Query.dataset(urn)).
// Descriptions edited in DataHub (editableProperties,
// editableSchemaMetadata) win over ingested ones (properties,
// schemaMetadata), as in DataHub's own UI.
const datahubQuery = `query ossieEnrich($urn: String!) {
  dataset(urn: $urn) {
    urn
    properties { description }
    editableProperties { description }
    glossaryTerms { ...terms }
    tags { ...tags }
    schemaMetadata { fields { fieldPath description glossaryTerms { ...terms } globalTags { ...tags } } }
    editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description glossaryTerms { ...terms } globalTags { ...tags } } }
  }
}
fragment terms on GlossaryTerms { terms { term { urn name properties { name } } } }
fragment tags on GlobalTags { tags { tag { urn name properties { name } } } }`

// datahubClient posts GraphQL queries to one DataHub endpoint.
type datahubClient struct {
	endpoint string
	token    string // sent as a Bearer token; never printed
	http     *http.Client
}

// errUnreachable marks failures to reach DataHub at all (connection,
// DNS, timeout, a gateway error), which exit with code 3.
var errUnreachable = errors.New("DataHub unreachable")

// errAuth marks a refused token (HTTP 401/403).
var errAuth = errors.New("DataHub refused the credentials")

// graphqlEndpoint accepts the GMS base address or the full endpoint:
// anything not ending in /graphql gets /api/graphql appended.
func graphqlEndpoint(base string) string {
	base = strings.TrimRight(base, "/")
	if strings.HasSuffix(base, "/graphql") {
		return base
	}
	return base + "/api/graphql"
}

// dhEntry is what DataHub knows about a dataset or one of its fields.
type dhEntry struct {
	description string
	synonyms    []string // glossary term names, then tag names
}

// dhDataset is one dataset: nil fields map when DataHub has no schema.
type dhDataset struct {
	dhEntry
	fields map[string]dhEntry // by normalised field path
}

// gqlLabel is a glossary term or a tag as DataHub returns both.
type gqlLabel struct {
	Urn        string `json:"urn"`
	Name       string `json:"name"`
	Properties *struct {
		Name string `json:"name"`
	} `json:"properties"`
}

type gqlTerms struct {
	Terms []struct {
		Term gqlLabel `json:"term"`
	} `json:"terms"`
}

type gqlTags struct {
	Tags []struct {
		Tag gqlLabel `json:"tag"`
	} `json:"tags"`
}

type gqlField struct {
	FieldPath     string    `json:"fieldPath"`
	Description   *string   `json:"description"`
	GlossaryTerms *gqlTerms `json:"glossaryTerms"`
	GlobalTags    *gqlTags  `json:"globalTags"`
}

type gqlDescription struct {
	Description *string `json:"description"`
}

type gqlResponse struct {
	Data *struct {
		Dataset *struct {
			Urn                string          `json:"urn"`
			Properties         *gqlDescription `json:"properties"`
			EditableProperties *gqlDescription `json:"editableProperties"`
			GlossaryTerms      *gqlTerms       `json:"glossaryTerms"`
			Tags               *gqlTags        `json:"tags"`
			SchemaMetadata     *struct {
				Fields []gqlField `json:"fields"`
			} `json:"schemaMetadata"`
			EditableSchemaMetadata *struct {
				EditableSchemaFieldInfo []gqlField `json:"editableSchemaFieldInfo"`
			} `json:"editableSchemaMetadata"`
		} `json:"dataset"`
	} `json:"data"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

// dataset fetches one dataset by URN; (nil, nil) when DataHub has none.
func (c *datahubClient) dataset(ctx context.Context, urn string) (*dhDataset, error) {
	body, _ := json.Marshal(map[string]any{"query": datahubQuery, "variables": map[string]string{"urn": urn}, "operationName": "ossieEnrich"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUnreachable, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: reading the answer: %v", errUnreachable, err)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("%w (HTTP %d)", errAuth, resp.StatusCode)
	case resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout:
		return nil, fmt.Errorf("%w: HTTP %d", errUnreachable, resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("DataHub answered HTTP %d: %s", resp.StatusCode, snippet(data))
	}
	var r gqlResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("DataHub's answer is not GraphQL JSON (is the URL the GraphQL endpoint?): %s", snippet(data))
	}
	if len(r.Errors) > 0 {
		msgs := make([]string, len(r.Errors))
		for i, e := range r.Errors {
			msgs[i] = e.Message
		}
		if r.Data == nil || r.Data.Dataset == nil {
			if strings.Contains(strings.ToLower(strings.Join(msgs, " ")), "unauthorized") {
				return nil, fmt.Errorf("%w: %s", errAuth, strings.Join(msgs, "; "))
			}
			return nil, fmt.Errorf("DataHub GraphQL error: %s", strings.Join(msgs, "; "))
		}
	}
	if r.Data == nil || r.Data.Dataset == nil {
		return nil, nil
	}
	d := r.Data.Dataset
	out := &dhDataset{}
	out.description = firstText(descOf(d.EditableProperties), descOf(d.Properties))
	out.synonyms = appendNames(nil, d.GlossaryTerms, d.Tags)
	if d.SchemaMetadata != nil || d.EditableSchemaMetadata != nil {
		out.fields = map[string]dhEntry{}
		if d.SchemaMetadata != nil {
			for _, f := range d.SchemaMetadata.Fields {
				out.fields[normFieldPath(f.FieldPath)] = dhEntry{description: deref(f.Description), synonyms: appendNames(nil, f.GlossaryTerms, f.GlobalTags)}
			}
		}
		if d.EditableSchemaMetadata != nil {
			for _, f := range d.EditableSchemaMetadata.EditableSchemaFieldInfo {
				k := normFieldPath(f.FieldPath)
				cur := out.fields[k]
				cur.description = firstText(deref(f.Description), cur.description)
				cur.synonyms = appendNames(cur.synonyms, f.GlossaryTerms, f.GlobalTags)
				out.fields[k] = cur
			}
		}
	}
	return out, nil
}

// normFieldPath maps a DataHub field path to the column it names:
// v2 paths such as `[version=2.0].[type=struct].address.[type=string].city`
// lose their bracketed type segments; comparison is case-insensitive.
func normFieldPath(p string) string {
	return strings.ToLower(strings.Trim(bracketSegment.ReplaceAllString(p, ""), "."))
}

// bracketSegment is one `[key=value].` annotation of a v2 field path.
var bracketSegment = regexp.MustCompile(`\[[^\]]*\]\.?`)

// appendNames adds glossary term and tag display names (properties.name,
// else the deprecated name, else the URN's last part) without duplicates.
func appendNames(out []string, terms *gqlTerms, tags *gqlTags) []string {
	add := func(l gqlLabel) {
		props := ""
		if l.Properties != nil {
			props = l.Properties.Name
		}
		n := firstText(props, l.Name)
		if n == "" {
			n = l.Urn[strings.LastIndex(l.Urn, ":")+1:]
		}
		for _, have := range out {
			if strings.EqualFold(have, n) {
				return
			}
		}
		if n != "" {
			out = append(out, n)
		}
	}
	if terms != nil {
		for _, t := range terms.Terms {
			add(t.Term)
		}
	}
	if tags != nil {
		for _, t := range tags.Tags {
			add(t.Tag)
		}
	}
	return out
}

func descOf(d *gqlDescription) string {
	if d == nil {
		return ""
	}
	return deref(d.Description)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

func firstText(texts ...string) string {
	for _, t := range texts {
		if strings.TrimSpace(t) != "" {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

func newDatahubClient(base, token string, timeout time.Duration) *datahubClient {
	return &datahubClient{endpoint: graphqlEndpoint(base), token: token, http: &http.Client{Timeout: timeout}}
}

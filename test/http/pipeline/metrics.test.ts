import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { authHeaders, buildTestApp, suiteApp } from '../../support/app.js'

const auth = authHeaders()

describe('GET /metrics', () => {
  const app = suiteApp()

  test('Prometheus text: request counts and latency by route and status, and process metrics, without a token', async () => {
    await app().inject({ method: 'GET', url: '/books', headers: auth })
    await app().inject({ method: 'GET', url: '/books', headers: auth })
    await app().inject({ method: 'GET', url: '/book/123', headers: auth })
    await app().inject({ method: 'GET', url: '/books' })
    await app().inject({ method: 'GET', url: '/no/such/path/42' })

    const response = await app().inject({ method: 'GET', url: '/metrics' })
    assert.equal(response.statusCode, 200)
    assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/)
    const text = response.body
    const line = (name: string) => text.split('\n').find((row) => row.startsWith(name))
    assert.equal(line('http_requests_total{method="GET",route="/books",status_code="200"}'), 'http_requests_total{method="GET",route="/books",status_code="200"} 2')
    assert.equal(line('http_requests_total{method="GET",route="/books",status_code="401"}'), 'http_requests_total{method="GET",route="/books",status_code="401"} 1')
    assert.equal(line('http_requests_total{method="GET",route="/book/:id",status_code="404"}'), 'http_requests_total{method="GET",route="/book/:id",status_code="404"} 1')
    // Unknown paths share one label value, so they cannot grow the series.
    assert.equal(line('http_requests_total{method="GET",route="unmatched",status_code="404"}'), 'http_requests_total{method="GET",route="unmatched",status_code="404"} 1')
    assert.doesNotMatch(text, /no\/such\/path/)
    assert.equal(
      line('http_request_duration_seconds_count{method="GET",route="/books",status_code="200"}'),
      'http_request_duration_seconds_count{method="GET",route="/books",status_code="200"} 2'
    )
    assert.match(text, /^http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/books",status_code="200"\} \d+$/m)
    assert.match(text, /^# TYPE http_request_duration_seconds histogram$/m)
    assert.match(text, /^process_cpu_user_seconds_total \d/m)
    assert.match(text, /^process_resident_memory_bytes \d/m)
    assert.match(text, /^nodejs_eventloop_lag_seconds \d/m)
  })

  test('METRICS_ENABLED=false: 404 Route not found', async () => {
    const off = await buildTestApp({ METRICS_ENABLED: false })
    try {
      const response = await off.inject({ method: 'GET', url: '/metrics' })
      assert.equal(response.statusCode, 404)
      assert.deepEqual(response.json(), { status: 404, message: 'Route not found', data: null })
    } finally {
      await off.close()
    }
  })
})

import { parsePrometheusText, timingsBetween, timingsOf } from './service-metrics';

const exposition = (getUserSum: number, getUserCount: number, routeSum: number, routeCount: number): string => `
# HELP grpc_server_handling_seconds Time to handle an RPC, by method.
# TYPE grpc_server_handling_seconds histogram
grpc_server_handling_seconds_bucket{le="0.001",grpc_service="identity.v1.IdentityService",grpc_method="GetUser",unit="identity"} 3
grpc_server_handling_seconds_sum{grpc_service="identity.v1.IdentityService",grpc_method="GetUser",unit="identity"} ${getUserSum}
grpc_server_handling_seconds_count{grpc_service="identity.v1.IdentityService",grpc_method="GetUser",unit="identity"} ${getUserCount}
http_request_duration_seconds_sum{method="GET",route="/v0/users/me",status_code="200"} ${routeSum}
http_request_duration_seconds_count{method="GET",route="/v0/users/me",status_code="200"} ${routeCount}
http_request_duration_seconds_count{method="GET",route="/v0/users/me",status_code="401"} 1
process_cpu_seconds_total 12.5
`;

describe('parsePrometheusText()', () => {
  it('reads names, labels and values, skipping comments', () => {
    const samples = parsePrometheusText(exposition(0.5, 100, 1, 10));
    expect(samples).toContainEqual({ name: 'process_cpu_seconds_total', labels: {}, value: 12.5 });
    expect(samples).toContainEqual({
      name: 'grpc_server_handling_seconds_count',
      labels: { grpc_service: 'identity.v1.IdentityService', grpc_method: 'GetUser', unit: 'identity' },
      value: 100,
    });
  });
});

describe('timingsBetween()', () => {
  it('answers the calls and mean time of each operation between two scrapes', () => {
    const before = timingsOf('identity', parsePrometheusText(exposition(0.5, 100, 1, 10)));
    const after = timingsOf('identity', parsePrometheusText(exposition(0.9, 300, 3, 30)));
    expect(timingsBetween(before, after)).toEqual([
      { unit: 'identity', operation: '/identity.v1.IdentityService/GetUser', calls: 200, meanMs: 2 },
      { unit: 'identity', operation: 'GET /v0/users/me', calls: 20, meanMs: 100 },
    ]);
  });
});

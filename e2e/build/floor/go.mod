module sidecar-injector.local/e2e/floor

go 1.26.0

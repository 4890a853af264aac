module sidecar-injector.local/e2e/images/app

go 1.26.0

test-unit:
	@echo "unit: no unit tests yet"

// A template test.

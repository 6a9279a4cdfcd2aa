-- What a model costs, as the person set it on the Models screen (US dollars per million tokens,
-- input and output); NULL where unknown. Shown as the cost of compared answers.
ALTER TABLE provider_models ADD COLUMN input_price REAL;
ALTER TABLE provider_models ADD COLUMN output_price REAL;

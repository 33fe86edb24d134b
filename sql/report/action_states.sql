-- The period's actions that need a person: waiting for approval (proposed) or failed, oldest first.
-- Parameters: $period.
SELECT action_id, kind, status, exception_type, decision, decided_by, transaction_id::VARCHAR AS transaction_id,
    partner_reference,
       amount::VARCHAR AS amount, currency_code, coalesce(error, provider_message) AS why
FROM recon_actions
WHERE period = $period AND status IN ('proposed', 'failed')
ORDER BY status DESC, action_id

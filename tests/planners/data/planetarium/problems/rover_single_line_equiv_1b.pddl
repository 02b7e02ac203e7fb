
    (define (problem rover)
        (:domain rover-single)
        (:objects
            site1 site2 site3 site4 site5 site6 - waypoint
            rgb - mode
            camera1 camera2 camera3 - camera
            objective1 objective2 objective3 - objective
        )
        (:init
            (can_traverse site1 site2)
            (can_traverse site2 site3)
            (can_traverse site3 site4)
            (can_traverse site4 site5)
            (can_traverse site5 site6)
            (visible site1 site2)
            (visible site2 site3)
            (visible site3 site4)
            (visible site4 site5)
            (visible site5 site6)
            (visible site6 site6)
            (at_rover site1)
            (available)
            (at_lander site6)
            (at_rock_sample site6)
            (supports camera1 rgb)
            (supports camera2 rgb)
            (supports camera3 rgb)
            (visible_from objective1 site5)
            (channel_free)
        )
        (:goal
            (and
                (communicated_rock_data site6)
                (communicated_image_data objective1 rgb)
            )
        )
    )